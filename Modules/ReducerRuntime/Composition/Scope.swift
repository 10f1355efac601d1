/// Runs a child reducer on a part of the parent's state, for the parent's actions that are the child's (REQUIREMENTS
/// F2): the child's effects come back as parent actions.
///
/// ```swift
/// struct Counter: Reducer {
///   struct State { var count = 0 }
///   enum Action: Sendable { case increment }
///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
///     state.count += 1
///     return .none
///   }
/// }
///
/// struct State { var counter = Counter.State() }
/// enum Action: Sendable { case counter(Counter.Action), resetTapped }
///
/// let app = CombineReducers<State, Action> {
///   Scope(state: \.counter, action: { if case .counter(let a) = $0 { a } else { nil } }, embed: Action.counter) {
///     Counter()
///   }
///   Reduce { state, action in
///     if case .resetTapped = action { state.counter = Counter.State() }
///     return .none
///   }
/// }
/// ```
public struct Scope<ParentState, ParentAction: Sendable, Child: Reducer>: Reducer {
  private let state: WritableKeyPath<ParentState, Child.State>
  private let extract: (ParentAction) -> Child.Action?
  private let embed: @Sendable (Child.Action) -> ParentAction
  private let child: Child

  /// A scope that runs `child` on the part of the parent's state at `state`, for the actions `extract` finds.
  ///
  /// - Parameters:
  ///   - state: Where the child's state is in the parent's.
  ///   - extract: The child's action inside a parent action, or `nil` for a parent action that is not the child's.
  ///   - embed: A child action as a parent action.
  ///   - child: The child reducer.
  public init(
    state: WritableKeyPath<ParentState, Child.State>, action extract: @escaping (ParentAction) -> Child.Action?,
    embed: @escaping @Sendable (Child.Action) -> ParentAction, child: () -> Child
  ) {
    self.state = state
    self.extract = extract
    self.embed = embed
    self.child = child()
  }

  /// Runs the child for its own actions; ignores the others.
  public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
    guard let childAction = extract(action) else { return .none }
    return child.reduce(into: &state[keyPath: self.state], action: childAction).map(embed)
  }
}
