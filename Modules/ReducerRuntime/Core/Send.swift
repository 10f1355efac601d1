/// Sends actions from an effect's work back into its store.
///
/// ```swift
/// return .run { send in await send(.loaded(try await api.load())) }
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
