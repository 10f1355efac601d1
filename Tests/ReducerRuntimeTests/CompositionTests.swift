import Clocks
import ReducerRuntime
import TestSupport
import Testing

/// A child that counts, and ticks on a clock: its tick is cancellable under one id, the same in every instance.
private struct Ticker: Reducer {
  struct State: Equatable, Sendable, Identifiable {
    var id: Int = 0
    var count = 0
    var ticks = 0
  }

  enum Action: Sendable, Equatable {
    case increment
    case start
    case tick
    case stop
    case delegate(Delegate)

    enum Delegate: Sendable, Equatable { case reachedThree }
  }

  struct TickID: Hashable, Sendable {}

  let clock: TestClock<Duration>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment:
      state.count += 1
      return state.count == 3 ? .send(.delegate(.reachedThree)) : .none
    case .start:
      return .run { [clock] send in
        try await clock.sleep(for: .seconds(1))
        await send(.tick)
      }
      .cancellable(id: TickID(), cancelInFlight: true)
    case .tick:
      state.ticks += 1
      return .none
    case .stop:
      return .cancel(id: TickID())
    case .delegate:
      return .none
    }
  }
}

/// A parent with an optional ticker and a list of tickers, whose own logic records what it saw.
private struct Parent: Reducer {
  struct State: Equatable, Sendable {
    var detail: Ticker.State?
    var rows: [Ticker.State] = []
    var log: [String] = []
  }

  enum Action: Sendable, Equatable {
    case detail(Ticker.Action)
    case row(Int, Ticker.Action)
    case present
    case dismiss
    case remove(Int)
  }

  let clock: TestClock<Duration>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    Reduce<State, Action> { state, action in
      switch action {
      case .detail(.delegate(.reachedThree)):
        state.log.append("detail reached three")
        state.detail = nil
      case .detail(let child):
        state.log.append("detail \(child), count \(state.detail?.count ?? -1)")
      case .row(let id, .delegate(.reachedThree)):
        state.log.append("row \(id) reached three")
      case .row: break
      case .present: state.detail = Ticker.State()
      case .dismiss: state.detail = nil
      case .remove(let id): state.rows.removeAll { $0.id == id }
      }
      return .none
    }
    .ifLet(\.detail, action: { if case .detail(let a) = $0 { a } else { nil } }, embed: Action.detail) {
      Ticker(clock: clock)
    }
    .forEach(\.rows, action: { if case .row(let id, let a) = $0 { (id, a) } else { nil } }, embed: Action.row) {
      Ticker(clock: clock)
    }
    .reduce(into: &state, action: action)
  }
}

/// Whether the effects of `task` finish within a bounded number of yields: a bug that leaves one running fails the
/// test instead of hanging it (awaiting a task ignores the test's time limit).
private func finishes(_ task: StoreTask?) async -> Bool {
  guard let task else { return true }
  return await TaskProbe { await task.finish() }.finished() != nil
}

@Suite(.timeLimit(.minutes(3))) struct CompositionTests {
  // MARK: - CombineReducers

  @Test("CombineReducers runs its reducers in order on one state, and runs all their effects in order")
  @MainActor
  func combineInOrder() {
    // GIVEN two reducers that log, the first also sending an action
    let reducer = CombineReducers<[String], String> {
      Reduce { state, action in
        state.append("first \(action)")
        return action == "go" ? .send("sent") : .none
      }
      Reduce { state, action in
        state.append("second \(action)")
        return .none
      }
    }
    let store = Store(initialState: [], reducer: reducer)
    // WHEN
    store.send("go")
    // THEN
    #expect(store.state == ["first go", "second go", "first sent", "second sent"])
  }

  @Test("CombineReducers takes any reducer, with if and for")
  @MainActor
  func combineBuilder() {
    let includeLast = false
    let reducer = CombineReducers<[Int], Int> {
      for step in 1...2 {
        Reduce { state, action in
          state.append(action * step)
          return .none
        }
      }
      Scope(state: \[Int].self, action: { $0 }, embed: { $0 }) {
        Reduce<[Int], Int> { state, action in
          state.append(-action)
          return .none
        }
      }
      if includeLast {
        Reduce { state, _ in
          state.append(0)
          return .none
        }
      }
    }
    let store = Store(initialState: [], reducer: reducer)
    store.send(5)
    #expect(store.state == [5, 10, -5])
  }

  // MARK: - ifLet

  @Test("ifLet runs the child on its state first, then the parent, which sees the child's new state")
  @MainActor
  func ifLetChildFirst() {
    let store = Store(initialState: Parent.State(detail: Ticker.State()), reducer: Parent(clock: TestClock()))
    store.send(.detail(.increment))
    #expect(store.state.detail?.count == 1)
    #expect(store.state.log == ["detail increment, count 1"])
  }

  @Test("ifLet ignores a child action while the child is absent")
  @MainActor
  func ifLetAbsentChild() async {
    let store = Store(initialState: Parent.State(), reducer: Parent(clock: TestClock()))
    let task = store.send(.detail(.start))
    #expect(task.isEmpty, "no effect was started for an absent child")
    #expect(store.state.detail == nil)
    #expect(store.state.log == ["detail start, count -1"], "the parent still sees the action")
  }

  @Test("ifLet embeds the child's effects; a child delegate reaches the parent (F2)")
  @MainActor
  func ifLetEffectsAndDelegate() async {
    let clock = TestClock()
    let store = Store(initialState: Parent.State(detail: Ticker.State()), reducer: Parent(clock: clock))
    let tick = store.send(.detail(.start))
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(1))
    #expect(await finishes(tick))
    #expect(store.state.detail?.ticks == 1)
    // WHEN the child counts to three, it tells the parent, which dismisses it
    for _ in 1...3 { store.send(.detail(.increment)) }
    #expect(store.state.detail == nil)
    #expect(store.state.log.last == "detail reached three")
  }

  @Test("Dismissing the child cancels its effects: a dismissed child's answer never arrives")
  @MainActor
  func ifLetDismissCancels() async {
    let clock = TestClock()
    let store = Store(initialState: Parent.State(detail: Ticker.State()), reducer: Parent(clock: clock))
    let tick = store.send(.detail(.start))
    #expect(await clock.sleeperArrived())
    // WHEN the parent dismisses the child, then presents a new one
    store.send(.dismiss)
    #expect(await finishes(tick))
    store.send(.present)
    await clock.advance(by: .seconds(5))
    // THEN the old tick never reached the new child
    #expect(store.state.detail?.ticks == 0)
    #expect(store.runningEffectCount == 0)
  }

  // MARK: - forEach

  @Test("forEach runs the child whose id the action carries; effects come back with that id")
  @MainActor
  func forEachRoutesByID() async {
    let clock = TestClock()
    let rows = [Ticker.State(id: 1), Ticker.State(id: 2)]
    let store = Store(initialState: Parent.State(rows: rows), reducer: Parent(clock: clock))
    store.send(.row(2, .increment))
    let tick = store.send(.row(1, .start))
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(1))
    #expect(await finishes(tick))
    #expect(store.state.rows.map(\.count) == [0, 1])
    #expect(store.state.rows.map(\.ticks) == [1, 0])
  }

  @Test("forEach ignores an action for an id that is not in the list")
  @MainActor
  func forEachMissingID() {
    let store = Store(initialState: Parent.State(rows: [Ticker.State(id: 1)]), reducer: Parent(clock: TestClock()))
    let task = store.send(.row(9, .start))
    #expect(task.isEmpty)
    #expect(store.state.rows == [Ticker.State(id: 1)])
  }

  @Test("Children's cancellation ids are their own: one row's cancelInFlight does not cancel another's work")
  @MainActor
  func forEachScopesCancelIDs() async {
    let clock = TestClock()
    let rows = [Ticker.State(id: 1), Ticker.State(id: 2)]
    let store = Store(initialState: Parent.State(rows: rows), reducer: Parent(clock: clock))
    let first = store.send(.row(1, .start))
    let second = store.send(.row(2, .start))
    store.send(.row(2, .stop))
    #expect(await finishes(second))
    #expect(store.runningEffectCount == 1, "row 2's stop left row 1's tick running")
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(1))
    #expect(await finishes(first))
    #expect(store.state.rows.map(\.ticks) == [1, 0])
  }

  @Test("Removing a child cancels its effects, and only its own")
  @MainActor
  func forEachRemovalCancels() async {
    let clock = TestClock()
    let rows = [Ticker.State(id: 1), Ticker.State(id: 2)]
    let store = Store(initialState: Parent.State(rows: rows), reducer: Parent(clock: clock))
    let first = store.send(.row(1, .start))
    let second = store.send(.row(2, .start))
    // WHEN row 1 goes away
    store.send(.remove(1))
    #expect(await finishes(first))
    #expect(store.runningEffectCount == 1)
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(1))
    #expect(await finishes(second))
    // THEN row 2 still ticked
    #expect(store.state.rows == [Ticker.State(id: 2, ticks: 1)])
  }
}
