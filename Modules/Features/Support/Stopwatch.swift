/// Time elapsed on a clock since a start, for any clock whose durations are `Duration`: how a feature measures
/// progress on the clock it was given (a `TestClock` in tests) without knowing the clock's type.
struct Stopwatch: Sendable {
  private let read: @Sendable () -> Duration

  /// A stopwatch started now on `clock`.
  init(_ clock: any Clock<Duration>) {
    read = Self.start(clock)
  }

  /// The time since the stopwatch started.
  var elapsed: Duration { read() }

  private static func start<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
    let start = clock.now
    return { start.duration(to: clock.now) }
  }
}
