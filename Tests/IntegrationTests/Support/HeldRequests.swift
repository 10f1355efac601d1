import Clocks
import TestSupport

/// Waits, in real time (up to 30 s), until something sleeps on `clock`: a request that reached a Sandbox started
/// with that clock and a latency fault, held there until the test advances the clock.
func requestHeld(on clock: TestClock<Duration>) async -> Bool {
  let deadline = ContinuousClock.now.advanced(by: .seconds(30))
  while ContinuousClock.now < deadline {
    if await clock.sleeperArrived() { return true }
  }
  return false
}
