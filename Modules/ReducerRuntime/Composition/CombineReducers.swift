/// Runs several reducers on the same state, one after the other, in the order they are written, and runs all their
/// effects: how a parent puts its children's reducers before its own logic (TCA's order: the child first, so that
/// the parent sees the child's new state).
///
/// ```swift
/// struct Counter: Reducer {
///   struct State { var count = 0 }
///   enum Action: Sendable { case incrementTapped, delegate(Delegate) }
///   enum Delegate: Sendable { case reachedTen }
///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
///     guard case .incrementTapped = action else { return .none }
///     state.count += 1
///     return state.count == 10 ? .send(.delegate(.reachedTen)) : .none
///   }
/// }
///
/// struct AppState { var counter = Counter.State(), celebrates = false }
/// enum AppAction: Sendable { case counter(Counter.Action) }
///
/// let app = CombineReducers<AppState, AppAction> {
///   Scope(state: \.counter, action: { if case .counter(let a) = $0 { a } else { nil } }, embed: AppAction.counter) {
///     Counter()
///   }
///   Reduce { state, action in
///     guard case .counter(.delegate(.reachedTen)) = action else { return .none }
///     state.celebrates = true   // the counter already counted to ten
///     return .none
///   }
/// }
/// ```
public struct CombineReducers<State, Action: Sendable>: Reducer {
  private let reducers: [Reduce<State, Action>]

  /// The reducers `build` lists, in order.
  public init(@ReducerBuilder<State, Action> _ build: () -> [Reduce<State, Action>]) {
    reducers = build()
  }

  /// Runs every reducer in order on `state`; their effects run together, those of the first first.
  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    var effects: [Effect<Action>] = []
    effects.reserveCapacity(reducers.count)
    for reducer in reducers { effects.append(reducer.reduce(into: &state, action: action)) }
    return .merge(effects)
  }
}
