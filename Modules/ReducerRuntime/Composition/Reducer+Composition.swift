extension Reducer {
  /// This reducer with an optional child: the child runs first on `toChild` while it is not `nil`, then this reducer
  /// runs; the child's effects come back as this reducer's actions, and are cancelled when this reducer sets the
  /// child's state to `nil` (REQUIREMENTS F2).
  ///
  /// ```swift
  /// struct Profile: Reducer {
  ///   struct State { var name = "" }
  ///   enum Action: Sendable { case closeTapped, delegate(Delegate) }
  ///   enum Delegate: Sendable { case closed }
  ///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
  ///     if case .closeTapped = action { return .send(.delegate(.closed)) }
  ///     return .none
  ///   }
  /// }
  ///
  /// struct State { var profile: Profile.State? }
  /// enum Action: Sendable { case profile(Profile.Action) }
  ///
  /// let app = Reduce<State, Action> { state, action in
  ///   if case .profile(.delegate(.closed)) = action { state.profile = nil }
  ///   return .none
  /// }
  /// .ifLet(\.profile, action: { if case .profile(let a) = $0 { a } else { nil } }, embed: Action.profile) {
  ///   Profile()
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - toChild: Where the child's state is, `nil` while there is no child.
  ///   - extract: The child's action inside an action of this reducer, or `nil` for one that is not the child's.
  ///   - embed: A child action as an action of this reducer.
  ///   - child: The child reducer.
  public func ifLet<Child: Reducer>(
    _ toChild: WritableKeyPath<State, Child.State?>, action extract: @escaping (Action) -> Child.Action?,
    embed: @escaping @Sendable (Child.Action) -> Action, child: () -> Child
  ) -> IfLetReducer<Self, Child> {
    IfLetReducer(parent: self, toChild: toChild, extract: extract, embed: embed, child: child())
  }

  /// This reducer with a list of children found by id: the child an action is for runs first, then this reducer;
  /// each child's effects come back embedded with its id, and are cancelled when this reducer removes the child
  /// (REQUIREMENTS F2).
  ///
  /// ```swift
  /// struct Row: Reducer {
  ///   struct State: Identifiable { let id: Int, title: String }
  ///   enum Action: Sendable { case deleteTapped, delegate(Delegate) }
  ///   enum Delegate: Sendable { case deleteTapped }
  ///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
  ///     if case .deleteTapped = action { return .send(.delegate(.deleteTapped)) }
  ///     return .none
  ///   }
  /// }
  ///
  /// struct State { var rows: [Row.State] = [] }
  /// enum Action: Sendable { case row(Row.State.ID, Row.Action) }
  ///
  /// let list = Reduce<State, Action> { state, action in
  ///   if case .row(let id, .delegate(.deleteTapped)) = action { state.rows.removeAll { $0.id == id } }
  ///   return .none
  /// }
  /// .forEach(\.rows, action: { if case .row(let id, let a) = $0 { (id, a) } else { nil } }, embed: Action.row) {
  ///   Row()
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - toElements: Where the children's states are, in order; their ids are unique.
  ///   - extract: The child id and action inside an action of this reducer, or `nil` for one that is no child's.
  ///   - embed: A child's action, with its id, as an action of this reducer.
  ///   - element: The reducer every child runs.
  public func forEach<Element: Reducer>(
    _ toElements: WritableKeyPath<State, [Element.State]>,
    action extract: @escaping (Action) -> (Element.State.ID, Element.Action)?,
    embed: @escaping @Sendable (Element.State.ID, Element.Action) -> Action, element: () -> Element
  ) -> ForEachReducer<Self, Element> where Element.State: Identifiable, Element.State.ID: Sendable {
    ForEachReducer(parent: self, toElements: toElements, extract: extract, embed: embed, element: element())
  }
}
