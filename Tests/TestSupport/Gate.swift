import KeelConcurrency

/// A gate that tasks pass when it is open and wait at when it is closed, until a test opens it: for holding a fake
/// server's answer or a fake refresh at a chosen moment.
public final class Gate: Sendable {
  private struct State {
    var isOpen: Bool
    var waiting: [CheckedContinuation<Void, Never>] = []
    /// The tasks in ``waiters(_:)``, by a number of their own: how many waiting callers each waits for.
    var watchers: [Int: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
    var nextWatcher = 0
  }

  private let state: Locked<State>

  /// A gate, open unless told otherwise.
  public init(open: Bool = true) { state = Locked(State(isOpen: open)) }

  /// Makes later callers of ``pass()`` wait.
  public func close() { state.withLock { $0.isOpen = false } }

  /// Lets every waiting caller through, and later ones at once.
  public func open() {
    let waiting = state.withLock { state in
      state.isOpen = true
      defer { state.waiting = [] }
      return state.waiting
    }
    for continuation in waiting { continuation.resume() }
  }

  /// How many callers are waiting.
  public var waitingCount: Int { state.withLock { $0.waiting.count } }

  /// Returns at once if the gate is open, otherwise when it opens.
  public func pass() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let (isOpen, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
        guard !state.isOpen else { return (true, []) }
        state.waiting.append(continuation)
        let reached = state.watchers.filter { $0.value.count <= state.waiting.count }
        for id in reached.keys { state.watchers[id] = nil }
        return (false, reached.values.map(\.continuation))
      }
      for watcher in watchers { watcher.resume() }
      if isOpen { continuation.resume() }
    }
  }

  /// Returns once `count` callers wait at the closed gate: for a test that waits on the arrival itself, not on the
  /// wall clock. Cancelling the task (a suite's time limit) returns at once.
  public func waiters(_ count: Int) async {
    let id = state.withLock { state in
      defer { state.nextWatcher += 1 }
      return state.nextWatcher
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let reached = state.withLock { state in
          guard state.waiting.count < count, !Task.isCancelled else { return true }
          state.watchers[id] = (count, continuation)
          return false
        }
        if reached { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.watchers.removeValue(forKey: id) }?.continuation.resume()
    }
  }
}
