/// Runs a feature: holds its state, reduces every action in order, runs the effects, and tells any number of
/// observers about each new state.
///
/// - **Re-entrancy:** an action sent while another is being reduced (by an `Effect.send`, say) is buffered and
///   reduced after it, in order; nothing is reduced twice at once.
/// - **Effects** run in tasks the store owns; they are cancelled when their id is, or when the store goes away.
/// - **Observers:** ``states()`` gives each one a stream of its own: the current state, then each change (a state
///   equal to the last one sent is skipped when `State` is `Equatable`).
///
/// ```swift
/// let store = Store(initialState: Counter.State(), reducer: Counter())
/// store.send(.increment)
/// for await state in store.states() { render(state) }
/// ```
@MainActor
public final class Store<State, Action: Sendable> {
  /// The state now.
  public var state: State { core.state }

  let core: StoreCore<State, Action>

  /// A store that runs `reducer` from `initialState`.
  public init<R: Reducer>(initialState: State, reducer: R) where R.State == State, R.Action == Action {
    core = StoreCore(
      state: initialState, reduce: { reducer.reduce(into: &$0, action: $1) }, isDuplicate: nil)
  }

  /// A store that runs `reducer` from `initialState`, and sends observers a state only when it changed.
  public init<R: Reducer>(
    initialState: State, reducer: R
  ) where R.State == State, R.Action == Action, State: Equatable {
    core = StoreCore(state: initialState, reduce: { reducer.reduce(into: &$0, action: $1) }, isDuplicate: { $0 == $1 })
  }

  init(core: StoreCore<State, Action>) {
    self.core = core
  }

  /// Reduces `action` (after any action being reduced now) and starts its effects.
  ///
  /// - Returns: The effects this send started, to await or cancel.
  @discardableResult
  public func send(_ action: Action) -> StoreTask { core.send(action) }

  /// How many effects are running: for tests and diagnostics.
  public var runningEffectCount: Int { core.effects.count }
}

extension Store where State: Sendable {
  /// A new stream of the state: the current one first, then every change, for as long as the store lives. Each call
  /// gives a stream of its own, so any number of observers may listen.
  public func states() -> AsyncStream<State> { core.states() }
}
