#if canImport(SwiftUI)
  import ReducerRuntime
  import SwiftUI

  extension Store {
    /// A binding to a field of the state that sends `action` with each new value, so that a control edits the
    /// state only through the reducer.
    ///
    /// ```swift
    /// import ReducerRuntime
    /// import SwiftUI
    ///
    /// struct Search: Reducer {
    ///   struct State: Equatable { var query = "" }
    ///   enum Action: Sendable { case queryChanged(String) }
    ///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
    ///     switch action {
    ///     case .queryChanged(let query): state.query = query
    ///     }
    ///     return .none
    ///   }
    /// }
    ///
    /// struct SearchView: View {
    ///   let store: Store<Search.State, Search.Action>
    ///   var body: some View {
    ///     TextField("Search", text: store.binding(\.query, send: Search.Action.queryChanged))
    ///   }
    /// }
    /// ```
    public func binding<Value>(
      _ field: KeyPath<State, Value>, send action: @escaping (Value) -> Action
    ) -> Binding<Value> {
      Binding(get: { self.state[keyPath: field] }, set: { self.send(action($0)) })
    }
  }

  /// A view of a child feature: it scopes `store` once, when the view is made, and hands the child store to
  /// `content`, which observes only the child's slice.
  ///
  /// ```swift
  /// import ReducerRuntime
  /// import SwiftUI
  ///
  /// struct Counter: Reducer {
  ///   struct State: Equatable { var count = 0 }
  ///   enum Action: Sendable { case increment }
  ///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
  ///     state.count += 1
  ///     return .none
  ///   }
  /// }
  ///
  /// struct HomeState: Equatable { var counter = Counter.State(), title = "Home" }
  /// enum HomeAction: Sendable { case counter(Counter.Action) }
  ///
  /// struct CounterView: View {
  ///   let store: Store<Counter.State, Counter.Action>
  ///   var body: some View {
  ///     Button("Count: \(store.state.count)") { store.send(.increment) }
  ///   }
  /// }
  ///
  /// struct HomeView: View {
  ///   let store: Store<HomeState, HomeAction>   // its reducer runs Counter in a Scope
  ///   var body: some View {
  ///     ScopedView(store, state: \.counter, action: HomeAction.counter) { CounterView(store: $0) }
  ///   }
  /// }
  /// ```
  public struct ScopedView<ChildState: Equatable, ChildAction: Sendable, Content: View>: View {
    private let child: Store<ChildState, ChildAction>
    private let content: (Store<ChildState, ChildAction>) -> Content

    /// A view of the child of `store` that `state` reads and whose actions `action` embeds.
    public init<State, Action: Sendable>(
      _ store: Store<State, Action>, state: @escaping (State) -> ChildState,
      action: @escaping (ChildAction) -> Action,
      @ViewBuilder content: @escaping (Store<ChildState, ChildAction>) -> Content
    ) {
      child = store.scope(state: state, action: action)
      self.content = content
    }

    /// The content, made from the child store.
    public var body: some View { content(child) }
  }
#endif
