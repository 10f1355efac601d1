/// Wakes one waiting loop (an outbox's sender): a signal that comes while the loop is busy is kept for its next wait,
/// and any number of signals before that wait count as one.
///
/// Package-internal: every Keel module may use it; no client sees it.
package final class WakeSignal: Sendable {
  private struct State {
    var pending = false
    var waiter: CheckedContinuation<Void, Never>?
  }

  private let state = Locked(State())

  /// A signal with nothing pending.
  package init() {}

  /// Wakes the waiting loop, or the next wait if none waits now.
  package func signal() {
    let waiter = state.withLock { state in
      defer { state.waiter = nil }
      if state.waiter == nil { state.pending = true }
      return state.waiter
    }
    waiter?.resume()
  }

  /// Returns at the next signal (at once if one is pending), or when the calling task is cancelled.
  package func wait() async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let now = state.withLock { state in
          if state.pending || Task.isCancelled {
            state.pending = false
            return true
          }
          state.waiter = continuation
          return false
        }
        if now { continuation.resume() }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        defer { state.waiter = nil }
        return state.waiter
      }
      waiter?.resume()
    }
  }

  /// Returns at the next signal, after `duration` when one is given, or when the calling task is cancelled.
  package func wait(orAfter duration: Duration?, sleep: @escaping @Sendable (Duration) async throws -> Void) async {
    guard let duration else { return await wait() }
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.wait() }
      group.addTask { try? await sleep(max(duration, .zero)) }
      await group.next()
      group.cancelAll()
    }
  }
}
