/// The engine behind a ``Store``: a root store reduces; a scoped one reads and sends through its parent.
@MainActor @usableFromInline
final class StoreCore<State, Action: Sendable> {
  @usableFromInline
  enum Kind {
    case root(reduce: (inout State, Action) -> Effect<Action>)
    case scoped(
      read: () -> State, forward: (Action) -> StoreTask, observe: (@escaping (State) -> Bool) -> Int,
      stopObserving: (Int) -> Void)
  }

  @usableFromInline let kind: Kind
  @usableFromInline var rootState: State
  let isDuplicate: ((State, State) -> Bool)?
  private var buffer: [Action] = []
  private var isReducing = false
  /// Called with each new state; one that returns `false` (its observer is gone) is dropped.
  private var observers: [Int: (State) -> Bool] = [:]
  private var nextObserver = 0
  let effects = EffectTasks()

  init(state: State, reduce: @escaping (inout State, Action) -> Effect<Action>, isDuplicate: ((State, State) -> Bool)?)
  {
    kind = .root(reduce: reduce)
    rootState = state
    self.isDuplicate = isDuplicate
  }

  @usableFromInline
  init(kind: Kind, state: State, isDuplicate: ((State, State) -> Bool)?) {
    self.kind = kind
    rootState = state
    self.isDuplicate = isDuplicate
  }

  /// A core for a child of this store's state and actions.
  ///
  /// Reading and sending go straight to the root, through composed closures, not through every level's store: a
  /// send through five levels costs five small calls more than one at the root, not five sends. The closures are
  /// built here, inlinable, so that they are specialized for the app's own state and action types where it scopes:
  /// unspecialized, each level's embedding passed its action through generic buffers, a third of a root send's cost
  /// for five levels.
  @inlinable
  func scoped<Child, ChildAction>(
    toChild: @escaping (State) -> Child, embed: @escaping (ChildAction) -> Action,
    isDuplicate: ((Child, Child) -> Bool)?
  ) -> StoreCore<Child, ChildAction> {
    StoreCore<Child, ChildAction>(
      kind: .scoped(
        read: reader(toChild), forward: forwarder(embed),
        observe: { observer in self.observe { observer(toChild($0)) } },
        stopObserving: { self.stopObserving($0) }),
      state: toChild(state), isDuplicate: isDuplicate)
  }

  /// A function that reads `toChild` of this store's state from the root.
  @inlinable
  func reader<Child>(_ toChild: @escaping (State) -> Child) -> () -> Child {
    switch kind {
    case .root: { toChild(self.rootState) }
    case .scoped(let read, _, _, _): { toChild(read()) }
    }
  }

  /// A function that sends a child action, embedded, to the root.
  @inlinable
  func forwarder<Child>(_ embed: @escaping (Child) -> Action) -> (Child) -> StoreTask {
    switch kind {
    case .root: { self.send(embed($0)) }
    case .scoped(_, let forward, _, _): { forward(embed($0)) }
    }
  }

  /// How a store of this core sends an action: to this core's reducer, or along the composed way to the root.
  var sender: (Action) -> StoreTask {
    switch kind {
    case .root: { self.send($0) }
    case .scoped(_, let forward, _, _): forward
    }
  }

  // Not `isolated`: that needs a newer runtime than the package's Apple deployment targets; `effects` is Sendable.
  deinit {
    effects.cancelAll()
  }

  @usableFromInline
  var state: State {
    switch kind {
    case .root: rootState
    case .scoped(let read, _, _, _): read()
    }
  }

  @usableFromInline
  func send(_ action: Action) -> StoreTask {
    switch kind {
    case .scoped(_, let forward, _, _):
      return forward(action)
    case .root(let reduce):
      // A send from inside a reduction is buffered and reduced by the loop below, after the current action.
      guard !isReducing else {
        buffer.append(action)
        return StoreTask([])
      }
      isReducing = true
      // A copy to compare with is kept only when someone observes and equality can be told.
      let observed = !observers.isEmpty
      let before = observed && isDuplicate != nil ? rootState : nil
      var started: [Task<Void, Never>] = []
      // The action itself is reduced without passing through the buffer: most sends buffer nothing, and in this
      // unspecialized generic code every touch of the buffer costs a metadata lookup.
      run(reduce(&rootState, action), ids: [], into: &started)
      if !buffer.isEmpty {
        var index = 0
        while index < buffer.count {
          let effect = reduce(&rootState, buffer[index])
          index += 1
          run(effect, ids: [], into: &started)
        }
        buffer.removeAll(keepingCapacity: true)
      }
      isReducing = false
      // Written without `Optional.map` closures: in this unspecialized generic code each one costs a runtime
      // lookup of its function type's metadata on every send.
      var unchanged = false
      if let before, let isDuplicate { unchanged = isDuplicate(before, rootState) }
      if observed, !unchanged {
        for (id, observer) in observers where !observer(rootState) { observers[id] = nil }
      }
      return StoreTask(started)
    }
  }

  /// How many observers a root store calls: for tests of their removal.
  var observerCount: Int { observers.count }

  /// Whether this store reads and sends through a parent.
  var isScoped: Bool {
    if case .scoped = kind { return true }
    return false
  }

  /// Calls `observer` with every new state until it returns `false`; returns the id to stop it with.
  @usableFromInline
  func observe(_ observer: @escaping (State) -> Bool) -> Int {
    switch kind {
    case .scoped(_, _, let observe, _):
      return observe(observer)
    case .root:
      nextObserver += 1
      observers[nextObserver] = observer
      return nextObserver
    }
  }

  @usableFromInline
  func stopObserving(_ id: Int) {
    switch kind {
    case .scoped(_, _, _, let stop): stop(id)
    case .root: observers[id] = nil
    }
  }

  private func run(_ effect: Effect<Action>, ids: [CancelID], into started: inout [Task<Void, Never>]) {
    switch effect.operation {
    case .none:
      return
    case .send(let action):
      buffer.append(action)
    case .merge(let effects):
      for effect in effects { run(effect, ids: ids, into: &started) }
    case .cancel(let id):
      effects.cancel(id)
    case .dismiss:
      CompositionWarning.nothingPresents(Action.self)
    case .cancellable(let id, let cancelInFlight, let inner):
      if cancelInFlight { effects.cancel(id) }
      run(inner, ids: ids + [id], into: &started)
    case .run(let work):
      let number = effects.reserve()
      let send = Send<Action> { @MainActor [weak self] action in
        // Checked again here: the effect may have been cancelled (on the main actor) while this send hopped to it.
        guard !Task.isCancelled else { return }
        self?.sendFromEffect(action)
      }
      let task = Task { [weak self] in
        await work(send)
        self?.effectFinished(number)
      }
      effects.add(task, number: number, ids: ids)
      started.append(task)
    }
  }

  private func sendFromEffect(_ action: Action) {
    _ = send(action)
  }

  private func effectFinished(_ number: Int) {
    effects.remove(number)
  }
}

extension StoreCore where State: Sendable {
  /// The current state, then every change; a state equal to the last one sent is skipped when there is a way to
  /// tell.
  func states() -> AsyncStream<State> {
    let (stream, continuation) = AsyncStream.makeStream(of: State.self)
    let last = LastSent(state)
    let isDuplicate = isDuplicate
    let id = observe { state in
      if let isDuplicate, isDuplicate(last.value, state) { return true }
      last.value = state
      continuation.yield(state)
      return true
    }
    continuation.onTermination = { [weak self] _ in
      Task { @MainActor in self?.stopObserving(id) }
    }
    continuation.yield(last.value)
    return stream
  }
}

/// The state a stream sent last, to skip an equal one.
@MainActor
private final class LastSent<State> {
  var value: State
  init(_ value: State) { self.value = value }
}
