#if canImport(Network)
  import Dispatch
  import KeelConcurrency
  import Network

  /// A ``NetworkMonitor`` that asks the system: `NWPathMonitor`'s path, online when it is `.satisfied` (Apple
  /// platforms only).
  ///
  /// It starts ``NetworkStatus/online`` and takes the system's answer as soon as `NWPathMonitor` gives its first
  /// path, a moment after creation; `deinit` cancels the path monitor and ends every status stream.
  public final class PathNetworkMonitor: NetworkMonitor {
    private let broadcast: StatusBroadcast
    // In a lock only so that this compiles whether or not the SDK declares `NWPathMonitor` Sendable; it is used
    // once more, in `deinit`.
    private let pathMonitor: Locked<NWPathMonitor>

    /// A monitor of the system's network path; it starts watching at once.
    public init() {
      let broadcast = StatusBroadcast(.online)
      let pathMonitor = NWPathMonitor()
      pathMonitor.pathUpdateHandler = { [broadcast] path in
        _ = broadcast.publish(path.status == .satisfied ? .online : .offline)
      }
      pathMonitor.start(queue: DispatchQueue(label: "keel.networking.path-monitor"))
      self.broadcast = broadcast
      self.pathMonitor = Locked(pathMonitor)
    }

    deinit {
      pathMonitor.withLock { $0.cancel() }
      broadcast.finish()
    }

    /// The status now.
    public var status: NetworkStatus { broadcast.current }

    /// A new stream of the status: the status now, then every change. See ``NetworkMonitor/statusUpdates()``.
    public func statusUpdates() -> AsyncStream<NetworkStatus> { broadcast.updates() }
  }
#endif
