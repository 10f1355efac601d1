import KeelConcurrency

/// The effect tasks a store runs, by number and by cancellation id. Behind a lock, so that the store's `deinit` (which
/// runs off the main actor) can cancel them.
final class EffectTasks: Sendable {
  private struct State {
    var running: [Int: Task<Void, Never>] = [:]
    var byID: [CancelID: Set<Int>] = [:]
    var nextNumber = 0
  }

  private let state = Locked(State())

  /// A number for a new task.
  func reserve() -> Int {
    state.withLock { state in
      state.nextNumber += 1
      return state.nextNumber
    }
  }

  /// Registers `task` as number `number`, under `ids`; a task that already finished is not registered.
  func add(_ task: Task<Void, Never>, number: Int, ids: [CancelID]) {
    state.withLock { state in
      state.running[number] = task
      for id in ids { state.byID[id, default: []].insert(number) }
    }
  }

  /// Forgets task `number`, which finished.
  func remove(_ number: Int) {
    state.withLock { state in
      state.running[number] = nil
      for (id, numbers) in state.byID where numbers.contains(number) {
        state.byID[id]?.remove(number)
        if state.byID[id]?.isEmpty == true { state.byID[id] = nil }
      }
    }
  }

  /// Cancels every task under `id`.
  func cancel(_ id: CancelID) {
    let tasks = state.withLock { state -> [Task<Void, Never>] in
      let numbers = state.byID.removeValue(forKey: id) ?? []
      return numbers.compactMap { state.running[$0] }
    }
    for task in tasks { task.cancel() }
  }

  /// Cancels every task.
  func cancelAll() {
    let tasks = state.withLock { state in
      defer { state.byID = [:] }
      return Array(state.running.values)
    }
    for task in tasks { task.cancel() }
  }

  /// How many tasks run.
  var count: Int { state.withLock { $0.running.count } }
}
