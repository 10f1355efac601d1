/// A value set once and awaited by any number of tasks: the first ``fulfill(_:)`` wins, later ones are ignored, and
/// every waiter, before or after, gets that value.
package final class OneShot<Value: Sendable>: Sendable {
  private let state = Locked<(value: Value?, waiters: [CheckedContinuation<Value, Never>])>((nil, []))

  /// An unset value.
  package init() {}

  /// The value, if it is set.
  package var current: Value? { state.withLock { $0.value } }

  /// Sets the value and wakes every waiter; `false` if it was already set (nothing changes).
  @discardableResult
  package func fulfill(_ value: Value) -> Bool {
    let waiters: [CheckedContinuation<Value, Never>]? = state.withLock { state in
      guard state.value == nil else { return nil }
      state.value = value
      defer { state.waiters = [] }
      return state.waiters
    }
    guard let waiters else { return false }
    for waiter in waiters { waiter.resume(returning: value) }
    return true
  }

  /// The value, once it is set. Not cancellable: whoever creates a `OneShot` makes sure that it is fulfilled.
  package func value() async -> Value {
    if let value = current { return value }
    return await withCheckedContinuation { continuation in
      let value: Value? = state.withLock { state in
        if let value = state.value { return value }
        state.waiters.append(continuation)
        return nil
      }
      if let value { continuation.resume(returning: value) }
    }
  }
}
