import Observation

/// Runs a feature: holds its state, reduces every action in order, runs the effects, and tells any number of
/// observers about each new state.
///
/// - **Re-entrancy:** an action sent while another is being reduced (by an `Effect.send`, say) is buffered and
///   reduced after it, in order; nothing is reduced twice at once.
/// - **Effects** run in tasks the store owns; they are cancelled when their id is, or when the store goes away.
/// - **Observers:** ``states()`` gives each one a stream of its own: the current state, then each change (a state
///   equal to the last one sent is skipped when `State` is `Equatable`).
/// - **Observation:** the store is `Observable`. Reading ``state`` inside `withObservationTracking` (or a SwiftUI
///   body) registers; each change of state is one notification, an action that leaves an `Equatable` state equal is
///   none, and a scoped store notifies only when its own slice changes.
///
/// ```swift
/// struct Counter: Reducer {
///   struct State: Equatable, Sendable { var count = 0 }
///   enum Action: Sendable { case increment }
///   func reduce(into state: inout State, action: Action) -> Effect<Action> {
///     state.count += 1
///     return .none
///   }
/// }
///
/// let store = Store(initialState: Counter.State(), reducer: Counter())
/// store.send(.increment)
/// for await state in store.states() { print(state.count) }   // 1, then each change
/// ```
@MainActor
public final class Store<State, Action: Sendable>: Observable {
  /// The state now. Reading it inside `withObservationTracking` registers for its next change.
  public var state: State {
    if !isAnnouncing {
      isAnnouncing = true
      announceChanges()
    }
    registrar.access(self, keyPath: stateKeyPath)
    readSinceChange = true
    return core.state
  }

  let core: StoreCore<State, Action>
  private let registrar = ObservationRegistrar()
  /// `\.state`, made once: a key path literal in a generic type is instantiated anew at every use (the runtime
  /// demangles its types each time), which made every send cost microseconds.
  private let stateKeyPath: KeyPath<Store, State> = \.state
  /// Whether ``state`` was read since the last change was announced. An observation registers by reading and ends
  /// at the first change it hears of (`withObservationTracking` is one-shot; SwiftUI reads again to re-register),
  /// so while nothing has read, no one is registered and a change need not be announced to the registrar.
  private var readSinceChange = true
  /// Whether this store listens to its core to announce changes: from the first read of ``state`` on, since no one
  /// can observe a store before reading it. Until then a send calls no observer for it (at every level of scoping).
  private var isAnnouncing = false
  /// For a scoped store whose state is `Equatable`: the slice last announced, to tell a change of the slice from a
  /// change elsewhere in the parent.
  private var announced: State?

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

  /// Tells the Observation framework of each change from now on: the root core calls only when its state changed (or
  /// cannot tell), and a scoped store with an `Equatable` slice compares the slice itself. The observer is dropped
  /// once this store is gone.
  private func announceChanges() {
    let compare = core.isScoped ? core.isDuplicate : nil
    if compare != nil { announced = core.state }
    _ = core.observe { [weak self] state in
      guard let self else { return false }
      if let compare, let announced = self.announced, compare(announced, state) { return true }
      if compare != nil { self.announced = state }
      guard self.readSinceChange else { return true }
      self.readSinceChange = false
      self.registrar.willSet(self, keyPath: self.stateKeyPath)
      self.registrar.didSet(self, keyPath: self.stateKeyPath)
      return true
    }
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
