import Clocks
import Domain
import Features
import FeaturesTesting
import TestSupport
import Testing

/// The example of the "Testing a feature" article, run: the search feature through an exhaustive TestStore.
/// `AppFeatureIntegrationTests` runs the live search against the Sandbox; the 300 ms debounce needs a test clock.
@Suite(.timeLimit(.minutes(3))) struct UserSearchTestStoreTests {
  @Test("Typing debounces 300 ms, then searches once, and the results arrive as the only change")
  @MainActor
  func debouncesThenSearches() async {
    let alice = User(userId: "alice", nickname: "Alice")
    let clock = TestClock()
    let searches = Searches()
    let store = TestStore(
      initialState: UserSearchFeature.State(),
      reducer: UserSearchFeature(
        search: { query in
          await searches.record(query)
          return [alice]
        }, clock: clock))

    await store.send(.view(.queryChanged("ali"))) {
      $0.query = "ali"
      $0.isLoading = true
    }
    #expect(await clock.sleeperArrived())  // the debounce waits on the clock before it is advanced
    await clock.advance(by: .milliseconds(299))
    #expect(await searches.queries.isEmpty)
    await clock.advance(by: .milliseconds(1))
    await store.receive(.response(.results(query: "ali", users: [alice]))) {
      $0.results = [alice]
      $0.isLoading = false
    }
    await store.finish()
    #expect(await searches.queries == ["ali"])
  }
}

/// The queries the search was asked, as the article keeps them.
private actor Searches {
  var queries: [String] = []
  func record(_ query: String) { queries.append(query) }
}
