import Testing

@testable import RateLimiting

/// The sleep of a limiter's head on the system's clocks: it wakes a little early and yields until it is due, so that
/// a timer's lateness does not add up down a queue; it never returns before its deadline. (On a test clock it is the
/// plain sleep every waiting-admission test runs through.)
@Suite("The head's precise sleep", .timeLimit(.minutes(1)))
struct PreciseSleepTests {
  @Test("On the continuous clock it returns at its deadline, never before", arguments: [3, 5, 30])
  func continuousClock(milliseconds: Int) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .milliseconds(milliseconds))
    try await clock.sleep(untilPreciselyDue: deadline)
    #expect(clock.now >= deadline)
  }

  @Test("On the suspending clock too")
  func suspendingClock() async throws {
    let clock = SuspendingClock()
    let deadline = clock.now.advanced(by: .milliseconds(10))
    try await clock.sleep(untilPreciselyDue: deadline)
    #expect(clock.now >= deadline)
  }

  @Test("A cancelled sleep throws, whether it sleeps or yields")
  func cancelled() async {
    let clock = ContinuousClock()
    let sleeper = Task { try await clock.sleep(untilPreciselyDue: clock.now.advanced(by: .seconds(30))) }
    sleeper.cancel()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
  }
}
