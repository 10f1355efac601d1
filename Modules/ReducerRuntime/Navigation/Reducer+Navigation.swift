extension Reducer {
  /// This reducer presenting a child (a sheet, a full-screen cover, a popover) while `toChild` is not `nil`: the
  /// child runs first on its actions, then this reducer; ``PresentationAction/dismiss`` (from the view, or from the
  /// child returning ``Effect/dismiss``) sets the child's state to `nil` after this reducer saw it, and a child that
  /// goes, however it goes, has its effects cancelled (REQUIREMENTS F2).
  ///
  /// ```swift
  /// struct Rename: Reducer {
  ///   struct State: Equatable { var name: String }
  ///   enum Action: Sendable { case saveTapped, saved }
  ///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
  ///     switch action {
  ///     case .saveTapped: return .run { send in await send(.saved) }   // the request, then
  ///     case .saved: return .dismiss                                  // the sheet goes
  ///     }
  ///   }
  /// }
  ///
  /// struct State { var rename: Rename.State? }
  /// enum Action: Sendable { case renameTapped, rename(PresentationAction<Rename.Action>) }
  ///
  /// let settings = Reduce<State, Action> { state, action in
  ///   if case .renameTapped = action { state.rename = Rename.State(name: "general") }
  ///   return .none
  /// }
  /// .ifLet(\.rename, action: { if case .rename(let a) = $0 { a } else { nil } }, embed: Action.rename) { Rename() }
  /// ```
  ///
  /// - Parameters:
  ///   - toChild: Where the child's state is, `nil` while it is not shown.
  ///   - extract: The child's presentation action inside an action of this reducer, or `nil` for one that is not.
  ///   - embed: A presentation action as an action of this reducer.
  ///   - child: The child reducer.
  public func ifLet<Child: Reducer>(
    _ toChild: WritableKeyPath<State, Child.State?>,
    action extract: @escaping (Action) -> PresentationAction<Child.Action>?,
    embed: @escaping @Sendable (PresentationAction<Child.Action>) -> Action, child: () -> Child
  ) -> PresentationReducer<Self, Child.State, Child.Action> {
    PresentationReducer(parent: self, toChild: toChild, extract: extract, embed: embed, child: Reduce(child()))
  }

  /// This reducer presenting an alert or a confirmation dialog while `toDialog` is not `nil`: a tap on a button
  /// sends `.presented(action)`, which this reducer handles, and then the dialog goes (unless this reducer showed
  /// another in its place); ``PresentationAction/dismiss`` (a button without an action) makes it go too. A button's
  /// action that arrives after its dialog went reaches nothing.
  ///
  /// ```swift
  /// enum Confirm: Equatable, Sendable { case delete }
  /// struct State { var alert: AlertState<Confirm>?, deleted = false }
  /// enum Action: Sendable { case deleteTapped, alert(PresentationAction<Confirm>) }
  ///
  /// let screen = Reduce<State, Action> { state, action in
  ///   switch action {
  ///   case .deleteTapped:
  ///     state.alert = AlertState(title: "Delete?", buttons: [.destructive("Delete", action: .delete), .cancel("No")])
  ///   case .alert(.presented(.delete)): state.deleted = true
  ///   case .alert(.dismiss): break
  ///   }
  ///   return .none
  /// }
  /// .ifLet(\.alert, action: { if case .alert(let a) = $0 { a } else { nil } }, embed: Action.alert)
  /// ```
  ///
  /// - Parameters:
  ///   - toDialog: Where the dialog's state is (an ``AlertState`` or a ``ConfirmationDialogState``), `nil` while it
  ///     is not shown.
  ///   - extract: The dialog's presentation action inside an action of this reducer, or `nil` for one that is not.
  ///   - embed: A presentation action as an action of this reducer.
  public func ifLet<DialogState: Equatable, DialogAction: Sendable>(
    _ toDialog: WritableKeyPath<State, DialogState?>,
    action extract: @escaping (Action) -> PresentationAction<DialogAction>?,
    embed: @escaping @Sendable (PresentationAction<DialogAction>) -> Action
  ) -> PresentationReducer<Self, DialogState, DialogAction> {
    PresentationReducer(
      parent: self, toChild: toDialog, extract: extract, embed: embed, child: nil, isSame: { $0 == $1 })
  }

  /// This reducer with a navigation stack: a destination's action runs that destination first, then this reducer;
  /// the view's pops and pushes follow; a destination that leaves the stack has its effects cancelled (REQUIREMENTS
  /// F2). The destinations are usually one reducer over an enum of every screen the stack can show, made of a
  /// ``Scope`` per case.
  ///
  /// ```swift
  /// struct Detail: Reducer {
  ///   struct State: Equatable, Sendable { var title: String }
  ///   enum Action: Equatable, Sendable { case closeTapped }
  ///   func reduce(into state: inout State, action: Action) -> Effect<Action> { .dismiss }   // pops itself
  /// }
  ///
  /// struct State { var path = StackState<Detail.State>() }
  /// enum Action: Sendable {
  ///   case openTapped(String)
  ///   case path(StackAction<Detail.State, Detail.Action>)
  /// }
  ///
  /// let root = Reduce<State, Action> { state, action in
  ///   if case .openTapped(let title) = action { state.path.append(Detail.State(title: title)) }
  ///   return .none
  /// }
  /// .forEach(\.path, action: { if case .path(let a) = $0 { a } else { nil } }, embed: Action.path) { Detail() }
  /// ```
  ///
  /// - Parameters:
  ///   - toStack: Where the stack is.
  ///   - extract: The stack's action inside an action of this reducer, or `nil` for one that is not.
  ///   - embed: A stack action as an action of this reducer.
  ///   - destination: The reducer every destination runs.
  public func forEach<Destination: Reducer>(
    _ toStack: WritableKeyPath<State, StackState<Destination.State>>,
    action extract: @escaping (Action) -> StackAction<Destination.State, Destination.Action>?,
    embed: @escaping @Sendable (StackAction<Destination.State, Destination.Action>) -> Action,
    destination: () -> Destination
  ) -> StackReducer<Self, Destination> where Destination.State: Sendable {
    StackReducer(parent: self, toStack: toStack, extract: extract, embed: embed, destination: destination())
  }
}
