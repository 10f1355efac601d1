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
  /// Where the child's state is: a field of the parent's, or a case of it (the parent's state is an enum).
  private enum Place {
    case field(WritableKeyPath<ParentState, Child.State>)
    case enumCase(extract: (ParentState) -> Child.State?, embed: (Child.State) -> ParentState)
  }

  private let place: Place
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
    place = .field(state)
    self.extract = extract
    self.embed = embed
    self.child = child()
  }

  /// A scope that runs `child` while the parent's state is the case `stateCase` finds (the parent's state is an
  /// enum: a navigation stack's destinations, say), and puts the child's new state back with `embedState`.
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
  /// enum Screen { case counter(Counter.State), about }
  /// enum ScreenAction: Sendable { case counter(Counter.Action) }
  ///
  /// let screen = Scope<Screen, ScreenAction, Counter>(
  ///   stateCase: { if case .counter(let s) = $0 { s } else { nil } }, embedState: Screen.counter,
  ///   action: { if case .counter(let a) = $0 { a } else { nil } }, embed: ScreenAction.counter
  /// ) {
  ///   Counter()
  /// }
  /// ```
  ///
  /// An action for the child while the parent's state is another case is ignored, with a warning in the log.
  ///
  /// - Parameters:
  ///   - stateCase: The child's state inside the parent's, or `nil` when the parent's is another case.
  ///   - embedState: The child's state as the parent's.
  ///   - extract: The child's action inside a parent action, or `nil` for a parent action that is not the child's.
  ///   - embed: A child action as a parent action.
  ///   - child: The child reducer.
  public init(
    stateCase: @escaping (ParentState) -> Child.State?, embedState: @escaping (Child.State) -> ParentState,
    action extract: @escaping (ParentAction) -> Child.Action?,
    embed: @escaping @Sendable (Child.Action) -> ParentAction, child: () -> Child
  ) {
    place = .enumCase(extract: stateCase, embed: embedState)
    self.extract = extract
    self.embed = embed
    self.child = child()
  }

  /// Runs the child for its own actions; ignores the others.
  public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
    guard let childAction = extract(action) else { return .none }
    switch place {
    case .field(let field):
      return child.reduce(into: &state[keyPath: field], action: childAction).map(embed)
    case .enumCase(let extractState, let embedState):
      guard var childState = extractState(state) else {
        CompositionWarning.missingChild(childAction, in: "a Scope of \(ParentState.self) in another case")
        return .none
      }
      let effect = child.reduce(into: &childState, action: childAction)
      state = embedState(childState)
      return effect.map(embed)
    }
  }
}
