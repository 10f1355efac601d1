/// Tells whether the network is usable, now and whenever that changes (REQUIREMENTS E6).
///
/// Delivery pauses while the status is ``NetworkStatus/offline`` and resumes as soon as it is
/// ``NetworkStatus/online`` again:
///
/// ```swift
/// let monitor: any NetworkMonitor = ManualNetworkMonitor()
/// for await status in monitor.statusUpdates() {
///   print(status == .online ? "Resuming uploads." : "Pausing uploads.")
/// }
/// ```
///
/// Implementations: `PathNetworkMonitor` asks the system (`NWPathMonitor`, Apple platforms only);
/// ``InferredNetworkMonitor`` infers the status from how requests go and probes while offline (every platform, the
/// one to use on Linux); ``ManualNetworkMonitor`` is told the status.
public protocol NetworkMonitor: Sendable {
  /// The status now.
  var status: NetworkStatus { get }

  /// A new stream of the status: the status now, then every change, never the same status twice in a row.
  ///
  /// Every call returns a stream of its own. It ends when the monitor is deallocated, and stops listening when its
  /// consumer's task is cancelled or the stream is dropped. It buffers what its consumer has not read yet, which is at
  /// most one element per change.
  func statusUpdates() -> AsyncStream<NetworkStatus>
}
