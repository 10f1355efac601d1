import Clocks
import Domain
import Features
import TestSupport
import Testing

/// A search the tests control: it records each query, answers from `users` (or throws `error`), and holds the
/// queries in `held` at `gate` until the test opens it.
private struct FakeSearch: Sendable {
  let calls = Recorder<String>()
  let gate = Gate(open: false)
  var held: Set<String> = []
  var error: FakeError?

  struct FakeError: Error, CustomStringConvertible {
    var description: String { "The server is down" }
  }

  static let users = [User(userId: "a1", nickname: "alice"), User(userId: "a2", nickname: "al")]

  var closure: @Sendable (String) async throws -> [User] {
    { [calls, gate, held, error] query in
      calls.record(query)
      if held.contains(query) { await gate.pass() }
      if let error { throw error }
      return Self.users.filter { $0.nickname == query }
    }
  }
}

@MainActor
private func makeStore(
  _ search: FakeSearch, clock: TestClock<Duration>
) -> Store<UserSearchFeature.State, UserSearchFeature.Action> {
  Store(initialState: UserSearchFeature.State(), reducer: UserSearchFeature(search: search.closure, clock: clock))
}

/// Whether the effects of `task` finish within a bounded number of yields: a bug that leaves one running fails the
/// test instead of hanging it (awaiting a task ignores the test's time limit).
private func finishes(_ task: StoreTask?) async -> Bool {
  guard let task else { return true }
  return await TaskProbe { await task.finish() }.finished() != nil
}

/// UserSearchFeature on a search the test controls and a TestClock (REQUIREMENTS D1, U7, F2).
/// `AppFeatureIntegrationTests` finds an imported user after the debounce against the Sandbox; the debounce's instants,
/// a cancelled wait and a late answer need the test clock and a search the test holds.
@Suite(.timeLimit(.minutes(3))) struct UserSearchFeatureTests {
  @Test("Typing debounces 300 ms: no request before, one after, then the results (D1, U7)")
  @MainActor
  func debounce() async {
    // GIVEN
    let clock = TestClock()
    let search = FakeSearch()
    let store = makeStore(search, clock: clock)
    // WHEN
    let task = store.send(.view(.queryChanged("alice")))
    #expect(store.state == UserSearchFeature.State(query: "alice", isLoading: true))
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .milliseconds(299))
    await settle()
    // THEN
    #expect(search.calls.elements.isEmpty)
    await clock.advance(by: .milliseconds(1))
    #expect(await finishes(task))
    #expect(search.calls.elements == ["alice"])
    #expect(store.state == UserSearchFeature.State(query: "alice", results: [FakeSearch.users[0]]))
  }

  @Test("A newer query cancels the older one's wait: only the last query is searched")
  @MainActor
  func newerQueryCancelsOlder() async {
    let clock = TestClock()
    let search = FakeSearch()
    let store = makeStore(search, clock: clock)
    var last: StoreTask?
    for query in ["a", "al", "ali", "alice"] {
      let previous = last
      last = store.send(.view(.queryChanged(query)))
      #expect(await finishes(previous))
      #expect(await clock.sleeperArrived())
      await clock.advance(by: .milliseconds(200))
    }
    await clock.advance(by: .milliseconds(100))
    #expect(await finishes(last))
    #expect(search.calls.elements == ["alice"])
    #expect(store.state.results == [FakeSearch.users[0]])
    #expect(!store.state.isLoading)
  }

  @Test("An empty or blank query clears the results without a request, and cancels a pending search")
  @MainActor
  func emptyQueryClears() async {
    let clock = TestClock()
    let search = FakeSearch()
    let store = makeStore(search, clock: clock)
    let first = store.send(.view(.queryChanged("alice")))
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .milliseconds(300))
    #expect(await finishes(first))
    #expect(store.state.results.count == 1)
    // WHEN the query is emptied, and later a blank one is typed while a search waits
    let emptied = store.send(.view(.queryChanged("")))
    #expect(emptied.isEmpty)
    #expect(store.state == UserSearchFeature.State())
    let pending = store.send(.view(.queryChanged("al")))
    store.send(.view(.queryChanged("   ")))
    #expect(await finishes(pending))
    await clock.advance(by: .seconds(1))
    await settle()
    // THEN
    #expect(search.calls.elements == ["alice"])
    #expect(store.state == UserSearchFeature.State(query: "   "))
    #expect(store.runningEffectCount == 0)
  }

  @Test("A newer query cancels a search already running at the server, not only one still waiting its debounce")
  @MainActor
  func newerQueryCancelsRunningSearch() async {
    // GIVEN a search for "al" running at a server that notices cancellation
    let clock = TestClock()
    let cancelled = Recorder<String>()
    let started = Recorder<String>()
    let store = Store(
      initialState: UserSearchFeature.State(),
      reducer: UserSearchFeature(
        search: { query in
          started.record(query)
          guard query == "al" else { return [] }
          let never = Gate(open: false)
          await withTaskCancellationHandler {
            await never.pass()
          } onCancel: {
            cancelled.record(query)
            never.open()
          }
          return []
        }, clock: clock))
    let older = store.send(.view(.queryChanged("al")))
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .milliseconds(300))
    #expect(await started.recorded(count: 1) == ["al"])
    // WHEN a newer query starts
    store.send(.view(.queryChanged("alice")))
    // THEN the running search is cancelled at once, before the newer one's debounce ends
    #expect(await cancelled.recorded(count: 1) == ["al"])
    #expect(await finishes(older))
    #expect(store.state.isLoading && store.state.query == "alice")
    await clock.advance(by: .milliseconds(300))
  }

  @Test("A late response never overwrites newer results")
  @MainActor
  func lateResponseIgnored() async {
    // GIVEN a search for "al" held at the server
    let clock = TestClock()
    var search = FakeSearch()
    search.held = ["al"]
    let gate = search.gate
    let store = makeStore(search, clock: clock)
    let older = store.send(.view(.queryChanged("al")))
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .milliseconds(300))
    // `eventually` is nonisolated and cannot take a closure from the main actor: the same bounded yields, here.
    for _ in 0..<10_000 where gate.waitingCount == 0 { await Task.yield() }
    #expect(gate.waitingCount == 1)
    // WHEN a newer query is answered first, then the older answer arrives
    let newer = store.send(.view(.queryChanged("alice")))
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .milliseconds(300))
    #expect(await finishes(newer))
    gate.open()
    #expect(await finishes(older))
    // THEN the newer results stay
    #expect(search.calls.elements == ["al", "alice"])
    #expect(store.state == UserSearchFeature.State(query: "alice", results: [FakeSearch.users[0]]))
    // AND a response for another query, however it arrives, is ignored
    store.send(.response(.results(query: "al", users: [FakeSearch.users[1]])))
    store.send(.response(.failed(query: "al", message: "late")))
    #expect(store.state == UserSearchFeature.State(query: "alice", results: [FakeSearch.users[0]]))
  }

  @Test("A failed search shows its error and stops loading; the next query clears the error")
  @MainActor
  func errorState() async {
    let clock = TestClock()
    var search = FakeSearch()
    search.error = FakeSearch.FakeError()
    let store = makeStore(search, clock: clock)
    let task = store.send(.view(.queryChanged("alice")))
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .milliseconds(300))
    #expect(await finishes(task))
    #expect(
      store.state == UserSearchFeature.State(query: "alice", isLoading: false, errorMessage: "The server is down"))
    store.send(.view(.queryChanged("alic")))
    #expect(store.state.errorMessage == nil)
    #expect(store.state.isLoading)
  }

  @Test("Tapping a user tells the parent through a delegate action (F2)")
  @MainActor
  func delegateOnTap() {
    struct Host: Reducer {
      struct State: Equatable {
        var search = UserSearchFeature.State()
        var selected: [User] = []
      }
      enum Action: Sendable { case search(UserSearchFeature.Action) }
      let search: UserSearchFeature
      func reduce(into state: inout State, action: Action) -> Effect<Action> {
        CombineReducers<State, Action> {
          Scope(state: \.search, action: { if case .search(let a) = $0 { a } else { nil } }, embed: Action.search) {
            search
          }
          Reduce { state, action in
            if case .search(.delegate(.userSelected(let user))) = action { state.selected.append(user) }
            return .none
          }
        }
        .reduce(into: &state, action: action)
      }
    }
    let search = FakeSearch()
    let feature = UserSearchFeature(search: search.closure, clock: TestClock())
    let store = Store(initialState: Host.State(), reducer: Host(search: feature))
    store.send(.search(.view(.userTapped(FakeSearch.users[1]))))
    #expect(store.state.selected == [FakeSearch.users[1]])
    #expect(search.calls.elements.isEmpty)
  }
}
