extension Clock {
  /// Sleeps until `deadline`, or returns at once (after a cancellation check) if it has already come.
  ///
  /// A timer task may start only after its deadline has passed (a busy machine, or a test clock advanced before the
  /// task ran); then there is nothing to wait for. Without this, a test clock, which wakes sleepers only when it is
  /// advanced, would leave such a timer asleep at its own deadline.
  func sleep(untilDue deadline: Instant) async throws {
    if now >= deadline {
      try Task.checkCancellation()
      return
    }
    // No tolerance: waking late is what the limiter tries hardest to avoid (schedule accuracy in keel-bench).
    try await sleep(until: deadline, tolerance: .zero)
  }
}

extension Clock where Duration == Swift.Duration {
  /// Sleeps until `deadline` and returns as close after it as the machine allows: for the head of a rate limiter's
  /// queue, whose admission moves every later one.
  ///
  /// A timer wakes its task some time after its deadline (about 0.15 ms on an idle Linux machine, more on a busy
  /// one). A limiter counts a head when it really goes, so that no two admissions are closer than the policy allows,
  /// and each such delay would therefore push back every caller queued behind it: ten callers of a one-per-second
  /// limiter would end more than a millisecond behind their schedule. On the system's own clocks a wait longer than
  /// ``precisionLead`` times four sleeps until ``precisionLead`` before the deadline, then yields until the deadline
  /// has come: at most that lead of one thread's time, spent in yields that let other tasks run, per admission. A
  /// shorter wait, or one on another clock (a test clock only moves when it is advanced), sleeps as
  /// ``sleep(untilDue:)`` does.
  func sleep(untilPreciselyDue deadline: Instant) async throws {
    guard Self.self == ContinuousClock.self || Self.self == SuspendingClock.self,
      now.duration(to: deadline) > precisionLead * 4
    else { return try await sleep(untilDue: deadline) }
    try await sleep(until: deadline.advanced(by: .zero - precisionLead), tolerance: .zero)
    while now < deadline {
      try Task.checkCancellation()
      await Task.yield()
    }
  }
}

/// How long before a limiter's head is due ``Clock/sleep(untilPreciselyDue:)`` wakes, to yield until then: above a
/// timer's usual lateness on an idle machine.
let precisionLead = Duration.microseconds(500)
