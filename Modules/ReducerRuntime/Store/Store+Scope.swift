extension Store {
  /// A store for a child feature inside this one: it reads `toChild` of this store's state, and sends each of its
  /// actions here as `embed(action)`, so that the parent's reducer (with ``Scope``) runs the child's (REQUIREMENTS F2).
  ///
  /// ```swift
  /// struct Counter: Reducer {
  ///   struct State: Equatable { var count = 0 }
  ///   enum Action: Sendable { case increment }
  ///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
  ///     state.count += 1
  ///     return .none
  ///   }
  /// }
  ///
  /// struct App: Reducer {
  ///   struct State: Equatable { var counter = Counter.State() }
  ///   enum Action: Sendable { case counter(Counter.Action) }
  ///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
  ///     Scope(state: \.counter, action: { if case .counter(let a) = $0 { a } else { nil } }, embed: Action.counter) {
  ///       Counter()
  ///     }
  ///     .reduce(into: &state, action: action)
  ///   }
  /// }
  ///
  /// let appStore = Store(initialState: App.State(), reducer: App())
  /// let counter = appStore.scope(state: \.counter, action: App.Action.counter)
  /// counter.send(.increment)              // reduced by App, whose Scope runs Counter
  /// print(appStore.state.counter.count)   // 1
  /// ```
  @inlinable
  public func scope<ChildState, ChildAction: Sendable>(
    state toChild: @escaping (State) -> ChildState, action embed: @escaping (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction> {
    Store<ChildState, ChildAction>(core: core.scoped(toChild: toChild, embed: embed, isDuplicate: nil))
  }

  /// A store for a child feature inside this one, whose observers get a child state only when it changed.
  @inlinable
  public func scope<ChildState: Equatable, ChildAction: Sendable>(
    state toChild: @escaping (State) -> ChildState, action embed: @escaping (ChildAction) -> Action
  ) -> Store<ChildState, ChildAction> {
    Store<ChildState, ChildAction>(core: core.scoped(toChild: toChild, embed: embed, isDuplicate: { $0 == $1 }))
  }
}
