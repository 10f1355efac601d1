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
