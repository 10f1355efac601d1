/// Runs several reducers on the same state, one after the other, in the order they are written, and runs all their
/// effects: how a parent puts its children's reducers before its own logic (TCA's order: the child first, so that
/// the parent sees the child's new state).
///
/// ```swift
/// let app = CombineReducers<AppState, AppAction> {
///   Scope(state: \.search, action: { if case .search(let a) = $0 { a } else { nil } }, embed: AppAction.search) {
///     UserSearchFeature.live(users: dependencies.users, clock: ContinuousClock())
///   }
///   Reduce { state, action in
///     guard case .search(.delegate(.userSelected(let user))) = action else { return .none }
///     state.selected = user
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
