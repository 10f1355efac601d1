import Clocks

/// A test clock whose sleepers all wake `lateness` after their deadline, as on a busy machine or after a system
/// sleep: a late wake-up, made deterministic.
struct LateClock: Clock {
  typealias Duration = Swift.Duration
  typealias Instant = TestClock<Duration>.Instant

  let base: TestClock<Duration>
  let lateness: Duration

  var now: Instant { base.now }
  var minimumResolution: Duration { .zero }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    try await base.sleep(until: deadline.advanced(by: lateness), tolerance: tolerance)
  }
}
