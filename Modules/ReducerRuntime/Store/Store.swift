import Observation

/// Runs a feature: holds its state, reduces every action in order, runs the effects, and tells any number of
/// observers about each new state.
///
/// - **Re-entrancy:** an action sent while another is being reduced (by an `Effect.send`, say) is buffered and
///   reduced after it, in order; nothing is reduced twice at once.
/// - **Effects** run in tasks the store owns; they are cancelled when their id is, or when the store goes away.
/// - **Observers:** ``states()`` gives each one a stream of its own: the current state, then each change (a state
///   equal to the last one sent is skipped when `State` is `Equatable`).
/// - **Observation:** the store is `Observable`, per property. Reading one field through the store (`store.count`,
///   the state's fields are the store's dynamic members) inside `withObservationTracking` (or a SwiftUI body)
///   registers for that field alone: a change of another field does not notify it (an `Equatable` field notifies
///   only when its value changed; any other, on every change of state). Reading ``state`` whole registers for every
///   change; an action that leaves an `Equatable` state equal is none, and a scoped store notifies only when its own
///   slice changes.
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
/// print(store.count)                                         // 1: a view that reads it re-renders for it alone
/// for await state in store.states() { print(state.count) }   // 1, then each change
/// ```
@MainActor
@dynamicMemberLookup
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

  @usableFromInline let core: StoreCore<State, Action>
  /// Sends an action where it is reduced: the root core's `send`, or a scoped store's composed way to the root. Kept
  /// here so that a send does not look at the core's kind (in unspecialized generic code, each look costs a runtime
  /// metadata lookup, as much as the rest of a scoped send).
  @usableFromInline let sendAction: (Action) -> StoreTask
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

  /// The fields read through ``subscript(dynamicMember:)-(KeyPath<State,Value>)``, by their key path on `State`.
  private var fields: [AnyKeyPath: ObservedField<State, Action>] = [:]
  /// The state when the fields were last compared: what a change is compared with, field by field.
  private var fieldsCompared: State?

  /// One field of the state, read so that an observer is told only of this field's changes: when its value differs
  /// from the last one (the field is `Equatable`).
  public subscript<Value: Equatable>(dynamicMember field: KeyPath<State, Value>) -> Value {
    observe(field) { $0[keyPath: field] != $1[keyPath: field] }
    return core.state[keyPath: field]
  }

  /// One field of the state, read so that an observer is told only of changes of state that may touch it: every
  /// change, as the field cannot be compared.
  public subscript<Value>(dynamicMember field: KeyPath<State, Value>) -> Value {
    observe(field, changed: nil)
    return core.state[keyPath: field]
  }

  /// Registers the reader of `field` with the Observation framework, as the reader of that field alone.
  private func observe<Value>(_ field: KeyPath<State, Value>, changed: ((State, State) -> Bool)?) {
    if !isAnnouncing {
      isAnnouncing = true
      announceChanges()
    }
    if fields[field] == nil {
      if fieldsCompared == nil { fieldsCompared = core.state }
      let path = stateKeyPath.appending(path: field)
      fields[field] = ObservedField(
        changed: changed, access: { $0.registrar.access($0, keyPath: path) },
        notify: {
          $0.registrar.willSet($0, keyPath: path)
          $0.registrar.didSet($0, keyPath: path)
        })
    }
    fields[field]?.readSinceChange = true
    fields[field]?.access(self)
  }

  /// Notifies the readers of each field that changed from `fieldsCompared` to `state`.
  private func announceFieldChanges(_ state: State) {
    guard let previous = fieldsCompared else { return }
    fieldsCompared = state
    for (key, field) in fields where field.readSinceChange {
      if let changed = field.changed, !changed(previous, state) { continue }
      fields[key]?.readSinceChange = false
      field.notify(self)
    }
  }

  /// A store that runs `reducer` from `initialState`.
  public init<R: Reducer>(initialState: State, reducer: R) where R.State == State, R.Action == Action {
    core = StoreCore(
      state: initialState, reduce: { reducer.reduce(into: &$0, action: $1) }, isDuplicate: nil)
    sendAction = core.sender
  }

  /// A store that runs `reducer` from `initialState`, and sends observers a state only when it changed.
  public init<R: Reducer>(
    initialState: State, reducer: R
  ) where R.State == State, R.Action == Action, State: Equatable {
    core = StoreCore(state: initialState, reduce: { reducer.reduce(into: &$0, action: $1) }, isDuplicate: { $0 == $1 })
    sendAction = core.sender
  }

  @usableFromInline
  init(core: StoreCore<State, Action>) {
    self.core = core
    sendAction = core.sender
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
      if !self.fields.isEmpty { self.announceFieldChanges(state) }
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
  @inlinable
  public func send(_ action: Action) -> StoreTask { sendAction(action) }

  /// How many effects are running: for tests and diagnostics.
  public var runningEffectCount: Int { core.effects.count }
}

extension Store where State: Sendable {
  /// A new stream of the state: the current one first, then every change, for as long as the store lives. Each call
  /// gives a stream of its own, so any number of observers may listen.
  public func states() -> AsyncStream<State> { core.states() }
}

/// A field of a store's state that someone read through the store: how to tell its change, and how to tell its
/// readers.
@MainActor
private struct ObservedField<State, Action: Sendable> {
  /// Whether the field differs between two states; `nil` when it cannot be told (every change is one).
  let changed: ((State, State) -> Bool)?
  /// Registers the current reader with the Observation framework.
  let access: (Store<State, Action>) -> Void
  /// Tells the field's readers it changed.
  let notify: (Store<State, Action>) -> Void
  /// Whether the field was read since its readers were last told: a one-shot registration needs no second call.
  var readSinceChange = true
}
