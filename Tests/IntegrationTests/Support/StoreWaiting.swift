import Features
import KeelBasics

/// Waits, in real time, until `store`'s state meets `condition`: for features driven by real services.
///
/// - Parameter timeout: 20 s by default; 60 s under ThreadSanitizer, where a whole run of suites at once on two cores
///   once took more than 20 s to sign in.
/// - Returns: whether the state met the condition before `timeout`; tests `#expect` it.
@MainActor
func waitUntil<State: Sendable, Action: Sendable>(
  _ store: Store<State, Action>, timeout: Duration = underThreadSanitizer ? .seconds(60) : .seconds(20),
  _ condition: @escaping @Sendable (State) -> Bool
) async -> Bool {
  let states = store.states()  // the current state first, then every change
  return await firstElement(of: states, within: timeout, where: condition) != nil
}
