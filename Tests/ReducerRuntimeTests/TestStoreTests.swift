import Clocks
import FeaturesTesting
import ReducerRuntime
import TestSupport
import Testing

/// A feature with an instant effect, a timed one on a `TestClock`, a chained `.send` and a never-ending wait.
private struct Ticker: Reducer {
  struct State: Equatable {
    var count = 0
    var isLoading = false
    var ticks = 0
  }

  enum Action: Equatable, Sendable {
    case increment
    case load
    case loaded(Int)
    case start
    case tick
    case chain
    case wait
  }

  let clock: TestClock<Duration>

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .increment:
      state.count += 1
      return .none
    case .load:
      state.isLoading = true
      return .run { send in await send(.loaded(42)) }
    case .loaded(let value):
      state.isLoading = false
      state.count = value
      return .none
    case .start:
      return .run { [clock] send in
        try await clock.sleep(for: .seconds(1))
        await send(.tick)
      }
    case .tick:
      state.ticks += 1
      return .none
    case .chain:
      return .send(.increment)
    case .wait:
      return .run { [clock] _ in try await clock.sleep(for: .seconds(60)) }
    }
  }
}

@Suite(.timeLimit(.minutes(3)))
@MainActor
struct TestStoreTests {
  private let clock = TestClock()

  private func makeStore() -> TestStore<Ticker.State, Ticker.Action> {
    TestStore(initialState: Ticker.State(), reducer: Ticker(clock: clock))
  }

  // MARK: - Passing flows

  @Test("An exhaustive flow passes: send, receive (instant and on the test clock), finish")
  func exhaustiveFlow() async {
    // GIVEN
    let store = makeStore()
    // WHEN / THEN
    await store.send(.increment) { $0.count = 1 }
    await store.send(.load) { $0.isLoading = true }
    await store.receive(.loaded(42)) {
      $0.isLoading = false
      $0.count = 42
    }
    await store.send(.start)
    #expect(await clock.sleeperArrived(), "the tick waits on the clock before it is advanced")
    await clock.advance(by: .seconds(1))
    await store.receive({ $0 == .tick }, assert: { $0.ticks = 1 })
    await store.send(.chain)
    await store.receive(.increment) { $0.count = 43 }
    await store.finish()
    #expect(store.state == Ticker.State(count: 43, isLoading: false, ticks: 1))
  }

  @Test("Non-exhaustive: unasserted changes, skipped and unreceived actions, running effects are not reported")
  func nonExhaustive() async {
    // GIVEN
    let store = makeStore()
    store.exhaustivity = .off
    // WHEN / THEN
    await store.send(.increment)
    await store.send(.chain)
    await store.send(.load) { $0.isLoading = true }
    await store.receive(.loaded(42)) { $0.count = 42 }
    await store.send(.wait)
    await store.send(.load)
    await store.finish(timeout: .milliseconds(100))
  }

  @Test("skipReceivedActions and skipInFlightEffects leave nothing to report")
  func skipping() async {
    let store = makeStore()
    await store.send(.chain)
    store.skipReceivedActions()
    await store.send(.wait)
    await store.skipInFlightEffects()
    #expect(store.state.count == 1)
    await store.finish()
  }

  // MARK: - Failures it reports

  @Test("A wrong state expectation is reported, with a diff of expected (−) and actual (+)")
  func wrongExpectation() async {
    let store = makeStore()
    let issues = await issuesRecorded {
      await store.send(.increment) { $0.count = 2 }
    }
    #expect(issues.count == 1)
    let lines = issues.first?.strippedLines ?? []
    #expect(lines.contains { $0.hasPrefix("\u{2212}") && $0.hasSuffix("count: 2,") })
    #expect(lines.contains { $0.hasPrefix("+") && $0.hasSuffix("count: 1,") })
    #expect(issues.first?.contains("does not match the expectation") == true)
    await store.finish()
  }

  @Test("A state change the test did not describe is reported")
  func undescribedChange() async {
    let store = makeStore()
    let issues = await issuesRecorded {
      await store.send(.increment)
    }
    #expect(issues.count == 1)
    #expect(issues.first?.strippedLines.contains { $0.hasPrefix("+") && $0.hasSuffix("count: 1,") } == true)
  }

  @Test("An action an effect sent and the test did not receive is reported at finish")
  func unreceivedAtFinish() async {
    let store = makeStore()
    await store.send(.chain)
    let issues = await issuesRecorded {
      await store.finish()
    }
    #expect(issues.count == 1)
    #expect(issues.first?.contains("1 action that effects sent was not received") == true)
    #expect(issues.first?.contains(".increment") == true)
  }

  @Test("An unreceived action is reported when the test store goes away without finish")
  func unreceivedAtDeinit() async {
    let issues = await issuesRecorded {
      let store = makeStore()
      await store.send(.chain)
    }
    #expect(issues.count == 1)
    #expect(issues.first?.contains("was not received") == true)
  }

  @Test("Sending while an effect's action waits to be received is reported")
  func sendBeforeReceive() async {
    let store = makeStore()
    await store.send(.chain)
    let issues = await issuesRecorded {
      await store.send(.increment) { $0.count = 2 }
    }
    #expect(issues.count == 1)
    #expect(issues.first?.contains("Must receive 1 action") == true)
    await store.finish()
  }

  @Test("An effect still running at finish is reported")
  func runningAtFinish() async {
    let store = makeStore()
    await store.send(.start)
    let issues = await issuesRecorded {
      await store.finish(timeout: .milliseconds(100))
    }
    #expect(issues.count == 1)
    #expect(issues.first?.contains("1 effect is still running") == true)
  }

  @Test("Receiving the wrong action is reported, with a diff of the actions")
  func wrongAction() async {
    let store = makeStore()
    await store.send(.load) { $0.isLoading = true }
    let issues = await issuesRecorded {
      await store.receive(.loaded(7)) { $0.count = 7 }
    }
    #expect(issues.count == 1)
    let lines = issues.first?.strippedLines ?? []
    #expect(lines.contains { $0.hasPrefix("\u{2212}") && $0.contains("loaded(7)") })
    #expect(lines.contains { $0.hasPrefix("+") && $0.contains("loaded(42)") })
    await store.finish()
  }

  @Test("Receiving when no effect runs is reported at once")
  func receiveWithoutEffects() async {
    let store = makeStore()
    let issues = await issuesRecorded {
      await store.receive(.tick)
    }
    #expect(issues.count == 1)
    #expect(issues.first?.contains("no effect is running") == true)
  }
}
