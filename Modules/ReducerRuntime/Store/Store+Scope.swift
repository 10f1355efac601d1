extension Store {
  /// A store for a child feature inside this one: it reads `toChild` of this store's state, and sends each of its
  /// actions here as `embed(action)`, so that the parent's reducer (with ``Scope``) runs the child's (REQUIREMENTS F2).
  ///
  /// ```swift
  /// let search = appStore.scope(state: \.search, action: AppFeature.Action.search)
  /// ```
  public func scope<ChildState, ChildAction: Sendable>(
    state toChild: @escaping (State) -> ChildState, action embed: @escaping (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction> {
    Store<ChildState, ChildAction>(
      core: StoreCore(parent: core, toChild: toChild, embed: embed, isDuplicate: nil))
  }

  /// A store for a child feature inside this one, whose observers get a child state only when it changed.
  public func scope<ChildState: Equatable, ChildAction: Sendable>(
    state toChild: @escaping (State) -> ChildState, action embed: @escaping (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction> {
    Store<ChildState, ChildAction>(
      core: StoreCore(parent: core, toChild: toChild, embed: embed, isDuplicate: { $0 == $1 }))
  }
}
