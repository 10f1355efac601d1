/// How strictly a ``TestStore`` checks a feature.
///
/// ```swift
/// import ReducerRuntime
///
/// struct Counter: Reducer {
///   struct State: Equatable { var count = 0, taps = 0 }
///   enum Action: Sendable { case increment }
///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
///     state.count += 1
///     state.taps += 1
///     return .none
///   }
/// }
///
/// let store = TestStore(initialState: Counter.State(), reducer: Counter())
/// store.exhaustivity = .off   // assert only what this test is about
/// await store.send(.increment) { $0.count = 1 }   // `taps` changed too, unchecked
/// ```
public enum Exhaustivity: Sendable, Equatable {
  /// Every state change is described in full, every action an effect sends is received, and no effect is still
  /// running at the end. The default.
  case on

  /// Only what the test asserts is checked: an assertion closure's assignments must match the real state, a
  /// `receive` skips the actions before the one it matches, and actions left unreceived or effects left running at
  /// the end are not reported. Describe values by assigning them (`$0.count = 2`, not `$0.count += 1`): the closure
  /// is applied to the state after the action.
  case off
}
