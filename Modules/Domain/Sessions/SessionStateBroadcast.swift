import Locking

/// The session state last published and the streams listening to it.
///
/// Each new stream gets the state first, then every change; ``publish(_:)`` ignores a state equal to the current one,
/// so no stream sees the same state twice in a row. Both happen under one lock, so that a change is never lost or
/// doubled for a stream that subscribes at the same moment.
final class SessionStateBroadcast: Sendable {
  private struct State {
    var current: SessionState
    var subscribers: [Int: AsyncStream<SessionState>.Continuation] = [:]
    var nextID = 0
  }

  private let state: Locked<State>

  /// A broadcast that starts at `current`.
  init(_ current: SessionState) {
    state = Locked(State(current: current))
  }

  /// The state last published.
  var current: SessionState { state.withLock { $0.current } }

  /// How many streams are listening.
  var subscriberCount: Int { state.withLock { $0.subscribers.count } }

  /// Makes `new` current and sends it to every stream, unless it is current already.
  ///
  /// - Returns: whether the state changed.
  @discardableResult
  func publish(_ new: SessionState) -> Bool {
    state.withLock { state in
      guard state.current != new else { return false }
      state.current = new
      for continuation in state.subscribers.values { continuation.yield(new) }
      return true
    }
  }

  /// A new stream: the current state, then every change.
  func updates() -> AsyncStream<SessionState> {
    let (stream, continuation) = AsyncStream.makeStream(of: SessionState.self)
    state.withLock { state in
      let id = state.nextID
      state.nextID += 1
      // Called when the consumer's task is cancelled, the stream is dropped, or `finish()` ends it; weak, so that a
      // stream nobody reads does not keep the broadcast alive.
      continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
      state.subscribers[id] = continuation
      continuation.yield(state.current)
    }
    return stream
  }

  /// Ends every stream; for the manager's `deinit`.
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
