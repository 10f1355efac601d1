import Clocks
import TestSupport

/// A test clock, the instant a test started, and a record of which value ran at which millisecond: the fixture of
/// the debounce and throttle tests.
struct TimedRuns {
  let clock = TestClock()
  let origin: TestClock<Duration>.Instant
  let ran = Recorder<(value: Int, ms: Int64)>()

  init() { origin = clock.now }

  /// An operation that records `value` and the time it ran.
  func operation(_ value: Int) -> @Sendable () async -> Void {
    { [ran, clock, origin] in ran.record((value, clock.milliseconds(since: origin))) }
  }

  /// Advances the clock to `ms` after the start.
  func advance(to ms: Int64) async {
    await clock.advance(to: origin.advanced(by: .milliseconds(ms)))
  }
}
