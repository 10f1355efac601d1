/// The Sandbox's view of its clock: the time since it started, and a way to wait. Built from any
/// `Clock<Duration>`, so that tests can expire tokens and close rate-limit windows with a `TestClock`.
struct Timekeeper: Sendable {
  /// The time since the Sandbox started.
  let now: @Sendable () -> Duration
  /// Waits `duration` on the clock.
  let sleep: @Sendable (Duration) async throws -> Void

  init<C: Clock<Duration>>(_ clock: C) {
    let origin = clock.now
    now = { origin.duration(to: clock.now) }
    sleep = { try await clock.sleep(for: $0) }
  }
}

extension Duration {
  /// The duration in milliseconds, fractions kept: what the control plane's JSON says of latencies and times.
  var milliseconds: Double {
    Double(components.seconds) * 1e3 + Double(components.attoseconds) / 1e15
  }
}
