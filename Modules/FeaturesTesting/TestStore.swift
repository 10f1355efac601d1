import Features

/// A store for tests: every state change and every action an effect sends must be described (work of issue 8).
@MainActor
public final class TestStore<State, Action: Sendable> {
  /// The state now.
  public private(set) var state: State

  /// A test store from `initialState`.
  public init(initialState: State) {
    state = initialState
  }
}
