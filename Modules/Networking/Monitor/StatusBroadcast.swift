import Locking

/// The status a monitor last published and the streams listening to it: the part every Keel ``NetworkMonitor``
/// shares.
///
/// Each new stream gets the status first, then every change; ``publish(_:)`` ignores a status equal to the current
/// one, so no stream sees the same status twice in a row. Both happen under one lock, so that a change is never lost
/// or doubled for a stream that subscribes at the same moment.
final class StatusBroadcast: Sendable {
  private struct State {
    var status: NetworkStatus
    var subscribers: [Int: AsyncStream<NetworkStatus>.Continuation] = [:]
    var nextID = 0
  }

  private let state: Locked<State>

  /// A broadcast that starts at `status`.
  init(_ status: NetworkStatus) {
    state = Locked(State(status: status))
  }

  /// The status last published.
  var status: NetworkStatus { state.withLock { $0.status } }

  /// How many streams are listening.
  var subscriberCount: Int { state.withLock { $0.subscribers.count } }

  /// Makes `status` current and sends it to every stream, unless it is current already.
  ///
  /// - Returns: whether the status changed.
  @discardableResult
  func publish(_ status: NetworkStatus) -> Bool {
    state.withLock { state in
      guard state.status != status else { return false }
      state.status = status
      for continuation in state.subscribers.values { continuation.yield(status) }
      return true
    }
  }

  /// A new stream: the current status, then every change.
  func updates() -> AsyncStream<NetworkStatus> {
    let (stream, continuation) = AsyncStream.makeStream(of: NetworkStatus.self)
    state.withLock { state in
      let id = state.nextID
      state.nextID += 1
      // Called when the consumer's task is cancelled, the stream is dropped, or `finish()` ends it; weak, so that a
      // stream nobody reads does not keep the broadcast alive.
      continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
      state.subscribers[id] = continuation
      continuation.yield(state.status)
    }
    return stream
  }

  /// Ends every stream; for the monitor's `deinit`.
  func finish() {
    let subscribers = state.withLock { state in
      defer { state.subscribers.removeAll() }
      return Array(state.subscribers.values)
    }
    // Outside the lock: `finish()` runs `onTermination`, which takes it.
    for continuation in subscribers { continuation.finish() }
  }

  private func unsubscribe(_ id: Int) {
    _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
  }
}
