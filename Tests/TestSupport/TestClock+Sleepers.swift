import Clocks

extension TestClock where Duration == Swift.Duration {
  /// Yields until at least one task is asleep on this clock, so that the next `advance` wakes it at its exact
  /// deadline rather than passing it by.
  ///
  /// - Returns: whether a sleeper appeared; tests `#expect` it.
  public func sleeperArrived(maxChecks: Int = 5_000) async -> Bool {
    for _ in 0..<maxChecks {
      // `checkSuspension` throws exactly when some task is suspended in `sleep` on this clock.
      do { try await checkSuspension() } catch { return true }
    }
    return false
  }

  /// The time since `start`, in whole milliseconds: readable numbers for admission instants.
  public func milliseconds(since start: Instant) -> Int64 {
    let (seconds, attoseconds) = start.duration(to: now).components
    return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
  }
}
