import Clocks

/// A test clock whose sleepers all wake `lateness` after their deadline, as on a busy machine or after a system
/// sleep: a late wake-up, made deterministic. Time still moves only when the test advances `base`.
public struct LateClock: Clock {
  /// The clock's duration type.
  public typealias Duration = Swift.Duration
  /// The clock's instants: those of `base`.
  public typealias Instant = TestClock<Duration>.Instant

  /// The test clock that tells the time and is advanced by the test.
  public let base: TestClock<Duration>
  /// How long after its deadline every sleeper wakes.
  public let lateness: Duration

  /// A clock on `base` whose sleepers wake `lateness` late.
  public init(base: TestClock<Duration>, lateness: Duration) {
    self.base = base
    self.lateness = lateness
  }

  /// `base`'s time.
  public var now: Instant { base.now }
  /// No resolution limit.
  public var minimumResolution: Duration { .zero }

  /// Suspends on `base` until `lateness` after `deadline`.
  public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    try await base.sleep(until: deadline.advanced(by: lateness), tolerance: tolerance)
  }
}
