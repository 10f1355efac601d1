/// The effects one ``Store/send(_:)`` started: await them with ``finish()``, or stop them with ``cancel()``.
///
/// ```swift
/// struct Feed: Reducer {
///   struct State { var items: [String] = [] }
///   enum Action: Sendable { case refresh, loaded([String]) }
///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
///     switch action {
///     case .refresh: return .run { send in await send(.loaded(["news"])) }
///     case .loaded(let items): state.items = items
///     }
///     return .none
///   }
/// }
///
/// let store = Store(initialState: Feed.State(), reducer: Feed())
/// await store.send(.refresh).finish()   // returns when the refresh's effects are done
/// print(store.state.items)              // ["news"]
/// ```
public struct StoreTask: Sendable {
  private let tasks: [Task<Void, Never>]

  init(_ tasks: [Task<Void, Never>]) {
    self.tasks = tasks
  }

  /// Whether the send started no effect that runs.
  public var isEmpty: Bool { tasks.isEmpty }

  /// Returns when every effect the send started has finished (or was cancelled).
  public func finish() async {
    for task in tasks { await task.value }
  }

  /// Cancels every effect the send started.
  public func cancel() {
    for task in tasks { task.cancel() }
  }
}
