import Features

/// Waits, in real time, until `store`'s state meets `condition`: for features driven by real services.
///
/// - Returns: whether the state met the condition before `timeout`; tests `#expect` it.
@MainActor
func waitUntil<State: Sendable, Action: Sendable>(
  _ store: Store<State, Action>, timeout: Duration = .seconds(20), _ condition: @escaping @Sendable (State) -> Bool
) async -> Bool {
  let states = store.states()  // the current state first, then every change
  return await withTaskGroup(of: Bool.self) { group in
    group.addTask {
      for await state in states where condition(state) { return true }
      return false
    }
    group.addTask {
      try? await Task.sleep(for: timeout)
      return false
    }
    let met = await group.next() ?? false
    group.cancelAll()
    return met
  }
}
