import Foundation

/// Keeps the optimizer from deleting work whose result is otherwise unused.
@inline(never)
func blackHole<T>(_ value: T) {}

/// Mean nanoseconds per call of `body` over `iterations` calls.
func nanosecondsPerCall(iterations: Int, _ body: () -> Void) -> Double {
  let clock = ContinuousClock()
  let start = clock.now
  for _ in 0..<iterations { body() }
  return nanoseconds(start.duration(to: clock.now)) / Double(iterations)
}

/// A duration in nanoseconds, as a `Double`.
func nanoseconds(_ duration: Duration) -> Double {
  let (seconds, attoseconds) = duration.components
  return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
}

/// Thrown when a benchmark's own sanity check fails, so that a broken measurement is never reported as a number.
struct BenchmarkError: Error, CustomStringConvertible {
  let description: String
}

/// This process's processor time so far, user and system, every thread, in µs: for the rows that weigh what a side
/// costs beside what it achieves.
func processMicroseconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
  return Double(time.tv_sec) * 1e6 + Double(time.tv_nsec) / 1e3
}
