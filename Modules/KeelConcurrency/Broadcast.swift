/// A value last published and the streams listening to it: a network monitor's status, a session's state, an event
/// tracker's delivery status.
///
/// Each new stream gets the value first, then every change; ``publish(_:)`` ignores a value equal to the current one,
/// so no stream sees the same value twice in a row. Both happen under one lock, so that a change is never lost or
/// doubled for a stream that subscribes at the same moment.
///
/// Package-internal: every Keel module may use it; no client sees it.
package final class Broadcast<Value: Equatable & Sendable>: Sendable {
  private struct State {
    var current: Value
    var subscribers: [Int: AsyncStream<Value>.Continuation] = [:]
    var nextID = 0
    var finished = false
  }

  private let state: Locked<State>
  private let buffering: AsyncStream<Value>.Continuation.BufferingPolicy

  /// A broadcast that starts at `current`.
  ///
  /// - Parameter buffering: What each stream keeps for a slow reader: every value by default; `.bufferingNewest(1)`
  ///   for a status that only its latest value matters of.
  package init(_ current: Value, buffering: AsyncStream<Value>.Continuation.BufferingPolicy = .unbounded) {
    state = Locked(State(current: current))
    self.buffering = buffering
  }

  /// The value last published.
  package var current: Value { state.withLock { $0.current } }

  /// How many streams are listening.
  package var subscriberCount: Int { state.withLock { $0.subscribers.count } }

  /// Makes `new` current and sends it to every stream, unless it is current already.
  ///
  /// - Returns: whether the value changed.
  @discardableResult
  package func publish(_ new: Value) -> Bool {
    state.withLock { state in
      guard state.current != new else { return false }
      state.current = new
      for continuation in state.subscribers.values { continuation.yield(new) }
      return true
    }
  }

  /// Changes the current value in place and publishes the result, under one lock.
  @discardableResult
  package func update(_ change: (inout Value) -> Void) -> Value {
    state.withLock { state in
      var new = state.current
      change(&new)
      if new != state.current {
        state.current = new
        for continuation in state.subscribers.values { continuation.yield(new) }
      }
      return new
    }
  }

  /// A new stream: the current value, then every change; after ``finish()``, the current value and the end.
  package func updates() -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: buffering)
    let ended = state.withLock { state in
      guard !state.finished else {
        continuation.yield(state.current)
        return true
      }
      let id = state.nextID
      state.nextID += 1
      // Called when the consumer's task is cancelled, the stream is dropped, or `finish()` ends it; weak, so that a
      // stream nobody reads does not keep the broadcast alive.
      continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
      state.subscribers[id] = continuation
      continuation.yield(state.current)
      return false
    }
    // Outside the lock, as in `finish()`.
    if ended { continuation.finish() }
    return stream
  }

  /// Ends every stream, and every stream asked for later after its first value: for the owner's end.
  package func finish() {
    let subscribers = state.withLock { state in
      state.finished = true
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
