import Features
import KeelConcurrency

/// Waits, in real time, until `store`'s state meets `condition`: for features driven by real services.
///
/// - Parameter timeout: 60 s by default: a whole run of suites at once on two cores has taken more than 20 s to sign
///   in and list the channels, under ThreadSanitizer and, on a slower machine, without it (1 s alone).
/// - Returns: whether the state met the condition before `timeout`; tests `#expect` it.
@MainActor
func waitUntil<State: Sendable, Action: Sendable>(
  _ store: Store<State, Action>, timeout: Duration = .seconds(60),
  _ condition: @escaping @Sendable (State) -> Bool
) async -> Bool {
  let states = store.states()  // the current state first, then every change
  return await firstElement(of: states, within: timeout, where: condition) != nil
}
