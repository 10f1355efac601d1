#if canImport(SwiftUI)
  import SwiftUI

  extension Store {
    /// A binding to a field of the state that sends `action` with each new value, so that a control edits the
    /// state only through the reducer.
    ///
    /// ```swift
    /// TextField("Search", text: store.binding(\.query, send: UserSearchFeature.Action.View.queryChanged))
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
  /// ScopedView(appStore, state: \.search, action: AppFeature.Action.search) { SearchView(store: $0) }
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
