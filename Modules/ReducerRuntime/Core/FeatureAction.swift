/// What can happen to a feature, grouped by where it comes from (F3): a feature names its four groups `View`,
/// `Internal`, `Response` and `Delegate` and its `Action` this type of them, so that every feature's actions read the
/// same at the top, and a parent tells what its child wants of it (``delegate(_:)``) from what only the child handles.
///
/// A feature that has no actions of a group gives `Never` for it.
///
/// ```swift
/// import ReducerRuntime
///
/// struct Counter: Reducer {
///   struct State: Equatable { var count = 0 }
///   enum View: Equatable, Sendable { case incrementTapped }
///   enum Delegate: Equatable, Sendable { case reachedTen }
///   typealias Action = FeatureAction<View, Never, Never, Delegate>
///
///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
///     guard case .view(.incrementTapped) = action else { return .none }
///     state.count += 1
///     return state.count == 10 ? .send(.delegate(.reachedTen)) : .none
///   }
/// }
/// ```
public enum FeatureAction<
  View: Equatable & Sendable, Internal: Equatable & Sendable, Response: Equatable & Sendable,
  Delegate: Equatable & Sendable
>: Equatable, Sendable {
  /// The user did something on screen.
  case view(View)
  /// Something the feature follows told it something (a stream of the service's), or its own work moved on.
  case `internal`(Internal)
  /// Something the feature asked for finished.
  case response(Response)
  /// Something for the parent to act on (F2).
  case delegate(Delegate)
}
