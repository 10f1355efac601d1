/// A feature's logic: how an action changes the state, and which effects it starts (REQUIREMENTS F1).
///
/// `reduce(into:action:)` is pure apart from `state`: it does no work of its own, and returns the work to do as an
/// ``Effect``, which the ``Store`` runs.
///
/// ```swift
/// struct Counter: Reducer {
///   struct State: Equatable { var count = 0 }
///   enum Action: Sendable { case increment, reset }
///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
///     switch action {
///     case .increment: state.count += 1
///     case .reset: state.count = 0
///     }
///     return .none
///   }
/// }
/// ```
public protocol Reducer<State, Action> {
  /// What the feature holds.
  associatedtype State
  /// What can happen to it.
  associatedtype Action: Sendable

  /// Applies `action` to `state` and returns the effect to run next.
  func reduce(into state: inout State, action: Action) -> Effect<Action>
}

/// A reducer made of a closure: for small features and for composing.
public struct Reduce<State, Action: Sendable>: Reducer {
  private let body: (inout State, Action) -> Effect<Action>

  /// A reducer that runs `body`.
  public init(_ body: @escaping (inout State, Action) -> Effect<Action>) {
    self.body = body
  }

  /// A reducer that runs `reducer`.
  public init<R: Reducer>(_ reducer: R) where R.State == State, R.Action == Action {
    body = reducer.reduce(into:action:)
  }

  /// Runs the closure.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    body(&state, action)
  }
}
