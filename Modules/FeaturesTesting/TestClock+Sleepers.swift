import Clocks

extension TestClock where Duration == Swift.Duration {
  /// Yields until at least one task is asleep on this clock, so that the next `advance` wakes it at its exact
  /// deadline rather than passing it by: a debounced effect that has not reached its `sleep` yet would otherwise
  /// miss the advance and wait for the next one.
  ///
  /// ```swift
  /// import Clocks
  ///
  /// let clock = TestClock()
  /// let sleeper = Task { try await clock.sleep(for: .milliseconds(300)) }
  /// if await clock.sleeperArrived() { await clock.advance(by: .milliseconds(300)) }
  /// try await sleeper.value
  /// ```
  ///
  /// - Parameter maxChecks: How many times to yield before giving up.
  /// - Returns: Whether a sleeper appeared; tests `#expect` it.
  public func sleeperArrived(maxChecks: Int = 5_000) async -> Bool {
    for _ in 0..<maxChecks {
      // `checkSuspension` throws exactly when some task is suspended in `sleep` on this clock.
      do { try await checkSuspension() } catch { return true }
    }
    return false
  }
}
