import Clocks
import ReducerRuntime
import TestSupport
import Testing

/// A small feature that exercises every kind of effect.
private struct Counter: Reducer {
  struct State: Equatable, Sendable {
    var count = 0
    var log: [String] = []
  }

  enum Action: Sendable {
    case increment
    case chain
    case load
    case loaded(Int)
    case debounced(String)
    case search(String)
    case cancelSearch
    case noop
  }

  struct SearchID: Hashable, Sendable {}

  let clock: TestClock<Duration>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment:
      state.count += 1
      state.log.append("increment")
      return .none
    case .chain:
      state.log.append("chain")
      return .merge(.send(.increment), .send(.increment))
    case .load:
      state.log.append("load")
      return .run { send in await send(.loaded(42)) }
    case .loaded(let value):
      state.count = value
      state.log.append("loaded \(value)")
      return .none
    case .search(let query):
      state.log.append("search \(query)")
      return .run { [clock] send in
        try await clock.sleep(for: .milliseconds(300))
        await send(.debounced(query))
      }
      .cancellable(id: SearchID(), cancelInFlight: true)
    case .debounced(let query):
      state.log.append("debounced \(query)")
      return .none
    case .cancelSearch:
      return .cancel(id: SearchID())
    case .noop:
      return .none
    }
  }
}

@Suite(.timeLimit(.minutes(3))) struct StoreTests {
  @Test("Actions are reduced in order; an effect's .send is reduced before the next outside action")
  @MainActor
  func ordering() {
    let store = Store(initialState: Counter.State(), reducer: Counter(clock: TestClock()))
    store.send(.chain)
    store.send(.increment)
    #expect(store.state.log == ["chain", "increment", "increment", "increment"])
    #expect(store.state.count == 3)
  }

  @Test("A .run effect sends back into the store; awaiting the send's task waits for it")
  @MainActor
  func runEffect() async {
    let store = Store(initialState: Counter.State(), reducer: Counter(clock: TestClock()))
    await store.send(.load).finish()
    #expect(store.state.log == ["load", "loaded 42"])
    for _ in 0..<10_000 where store.runningEffectCount > 0 { await Task.yield() }
    #expect(store.runningEffectCount == 0)
  }

  @Test("A newer cancellable effect with cancelInFlight replaces the older one (debounce, D1)")
  @MainActor
  func cancelInFlight() async {
    let clock = TestClock()
    let store = Store(initialState: Counter.State(), reducer: Counter(clock: clock))
    let first = store.send(.search("a"))
    #expect(await clock.sleeperArrived())
    let second = store.send(.search("ab"))
    await first.finish()
    await clock.advance(by: .milliseconds(300))
    await second.finish()
    #expect(store.state.log == ["search a", "search ab", "debounced ab"])
  }

  @Test("Cancelling by id stops the effect: it sends nothing")
  @MainActor
  func cancelByID() async {
    let clock = TestClock()
    let store = Store(initialState: Counter.State(), reducer: Counter(clock: clock))
    let search = store.send(.search("a"))
    #expect(await clock.sleeperArrived())
    store.send(.cancelSearch)
    await search.finish()
    await clock.advance(by: .seconds(1))
    #expect(store.state.log == ["search a"])
  }

  @Test("A store that goes away cancels its effects")
  @MainActor
  func teardown() async {
    let clock = TestClock()
    var store: Store<Counter.State, Counter.Action>? = Store(
      initialState: Counter.State(), reducer: Counter(clock: clock))
    let search = store?.send(.search("a"))
    #expect(await clock.sleeperArrived())
    store = nil
    await search?.finish()
    #expect(store == nil)
  }

  @Test("A send made while an action is reduced waits for that reduction to end, then runs, in order (re-entrancy)")
  @MainActor
  func reentrantSend() {
    let link = StoreLink()
    let store = Store(
      initialState: [String](),
      reducer: Reduce<[String], String> { state, action in
        state.append(action)
        guard action == "first" else { return .none }
        MainActor.assumeIsolated { _ = link.store?.send("re-entrant") }  // sent from inside the reduction
        #expect(state == ["first"], "not reduced inside the reduction it was sent from")
        return .send("effect")
      })
    link.store = store
    store.send("first")
    #expect(store.state == ["first", "re-entrant", "effect"], "all reduced before send returned, in the order sent")
  }

  @Test("Every observer gets the current state, then each change, and no duplicate")
  @MainActor
  func observers() async {
    let store = Store(initialState: Counter.State(), reducer: Counter(clock: TestClock()))
    var first = store.states().makeAsyncIterator()
    var second = store.states().makeAsyncIterator()
    #expect(await first.next()?.count == 0)
    #expect(await second.next()?.count == 0)
    store.send(.noop)
    store.send(.increment)
    #expect(await first.next()?.count == 1, "the unchanged state after .noop was not sent")
    #expect(await second.next()?.count == 1)
  }

  @Test("A scoped store reads its part of the parent's state and sends through the parent")
  @MainActor
  func scoping() async {
    let store = Store(initialState: Counter.State(), reducer: Counter(clock: TestClock()))
    let count = store.scope(state: \.count, action: { (_: Void) in Counter.Action.increment })
    count.send(())
    count.send(())
    #expect(count.state == 2)
    #expect(store.state.count == 2)
    var updates = count.states().makeAsyncIterator()
    #expect(await updates.next() == 2)
    store.send(.noop)
    store.send(.increment)
    #expect(await updates.next() == 3)
  }

  @Test("Scope runs a child reducer on its part of the state; its effects come back as parent actions")
  @MainActor
  func scopeReducer() async {
    struct Parent: Reducer {
      struct State: Equatable, Sendable { var child = Counter.State() }
      enum Action: Sendable { case child(Counter.Action) }
      let clock: TestClock<Duration>
      func reduce(into state: inout State, action: Action) -> Effect<Action> {
        Scope(
          state: \State.child,
          action: { (action: Action) -> Counter.Action? in
            if case .child(let child) = action { child } else { nil }
          }, embed: Action.child
        ) { Counter(clock: clock) }
        .reduce(into: &state, action: action)
      }
    }
    let store = Store(initialState: Parent.State(), reducer: Parent(clock: TestClock()))
    await store.send(.child(.load)).finish()
    #expect(store.state.child.log == ["load", "loaded 42"])
  }

  @Test("The safe subscript answers nil out of bounds (F5)")
  @MainActor
  func safeSubscript() {
    let values = [1, 2, 3]
    #expect(values[safe: 2] == 3)
    #expect(values[safe: 3] == nil)
    #expect(values[safe: -1] == nil)
  }
}

/// A way for a reducer to reach the store that runs it, as a view's code might.
@MainActor private final class StoreLink {
  weak var store: Store<[String], String>?
}
