/// A first-in, first-out lock for async code: one holder at a time, the others wait their turn without a thread.
package final class AsyncTurns: Sendable {
  private let state = Locked<(held: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  /// A free lock.
  package init() {}

  /// Runs `body` once every earlier caller's `body` has finished.
  package func run<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
    await acquire()
    defer { release() }
    return try await body()
  }

  private func acquire() async {
    let free = state.withLock { state in
      guard state.held else {
        state.held = true
        return true
      }
      return false
    }
    if free { return }
    await withCheckedContinuation { continuation in
      let now = state.withLock { state in
        guard state.held else {
          state.held = true
          return true
        }
        state.waiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }

  private func release() {
    let next: CheckedContinuation<Void, Never>? = state.withLock { state in
      guard !state.waiters.isEmpty else {
        state.held = false
        return nil
      }
      return state.waiters.removeFirst()  // the lock passes to it, still held
    }
    next?.resume()
  }
}
