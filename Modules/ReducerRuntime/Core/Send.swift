/// Sends actions from an effect's work back into its store.
///
/// ```swift
/// struct Profile: Reducer {
///   struct State { var name: String? }
///   enum Action: Sendable { case load, loaded(String) }
///   let fetchName: @Sendable () async throws -> String
///
///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
///     switch action {
///     case .load:
///       return .run { [fetchName] send in await send(.loaded(try await fetchName())) }
///     case .loaded(let name):
///       state.name = name
///       return .none
///     }
///   }
/// }
/// ```
public struct Send<Action: Sendable>: Sendable {
  private let body: @Sendable (Action) async -> Void

  /// A sender that hands each action to `body`.
  public init(_ body: @escaping @Sendable (Action) async -> Void) {
    self.body = body
  }

  /// Sends `action`, unless the work was cancelled: a cancelled effect sends nothing more.
  public func callAsFunction(_ action: Action) async {
    guard !Task.isCancelled else { return }
    await body(action)
  }
}
