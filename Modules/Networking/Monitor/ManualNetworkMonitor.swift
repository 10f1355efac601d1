import KeelConcurrency

/// A ``NetworkMonitor`` whose status is whatever it was last told: for an app that has its own source of
/// connectivity (an "offline mode" switch, another reachability library), and for tests that flip between online
/// and offline.
///
/// ```swift
/// let monitor = ManualNetworkMonitor()
/// monitor.status = .offline   // every stream sees .offline
/// ```
public final class ManualNetworkMonitor: NetworkMonitor {
  private let broadcast: StatusBroadcast

  /// A monitor whose status is `status` until it is set; online by default.
  public init(_ status: NetworkStatus = .online) {
    broadcast = StatusBroadcast(status)
  }

  deinit {
    broadcast.finish()
  }

  /// The status now; setting a different one sends it to every stream, setting the same one does nothing.
  public var status: NetworkStatus {
    get { broadcast.current }
    set { broadcast.publish(newValue) }
  }

  /// A new stream of the status: the status now, then every change. See ``NetworkMonitor/statusUpdates()``.
  public func statusUpdates() -> AsyncStream<NetworkStatus> { broadcast.updates() }
}
