import Clocks
import RateLimiting
import TestSupport
import Testing

/// A waiting `acquire` is admitted at the exact instant its algorithm allows, not a millisecond before or after.
@Suite("Waiting admissions", .timeLimit(.minutes(3)))
struct WaitingInstantTests {
  @Test("Token bucket: waits for the refill, cost 2 waits for two tokens")
  func tokenBucket() async {
    let clock = TestClock()
    let limiter = TokenBucket(rate: .perSecond(2), burst: 3, clock: clock)
    #expect(limiter.tryAcquire(cost: 3))
    let instants = await admissionInstants(of: [1, 2], expecting: [500, 1500], on: limiter, clock: clock)
    #expect(instants == [500, 1500])
  }

  @Test("GCRA: waits for the theoretical arrival time")
  func gcra() async {
    let clock = TestClock()
    let limiter = GCRA(rate: .perSecond(2), burst: 3, clock: clock)
    #expect(limiter.tryAcquire(cost: 3))
    let instants = await admissionInstants(of: [1, 2], expecting: [500, 1500], on: limiter, clock: clock)
    #expect(instants == [500, 1500])
  }

  @Test("Leaky bucket: one spacing apart")
  func leakyBucket() async {
    let clock = TestClock()
    let limiter = LeakyBucket(rate: .perSecond(2), capacity: 3, clock: clock)
    #expect(limiter.tryAcquire())
    let instants = await admissionInstants(of: [1, 1], expecting: [500, 1000], on: limiter, clock: clock)
    #expect(instants == [500, 1000])
  }

  @Test("Fixed window: waits for the next window, and the one after when that fills")
  func fixedWindow() async {
    let clock = TestClock()
    let limiter = FixedWindow(rate: .perSecond(3), clock: clock)
    #expect(limiter.tryAcquire(cost: 3))
    let instants = await admissionInstants(of: [2, 2], expecting: [1000, 2000], on: limiter, clock: clock)
    #expect(instants == [1000, 2000])
  }

  @Test("Sliding-window log: waits until the oldest admissions leave the window")
  func slidingWindowLog() async {
    let clock = TestClock()
    let limiter = SlidingWindowLog(rate: .perSecond(3), clock: clock)
    #expect(limiter.tryAcquire())
    await clock.advance(by: .milliseconds(400))
    #expect(limiter.tryAcquire(cost: 2))
    let instants = await admissionInstants(of: [1, 2], expecting: [600, 1000], on: limiter, clock: clock)
    // Measured from 400 ms: the first leaves at 1000 ms, the cost-2 admission at 1400 ms.
    #expect(instants == [600, 1000])
  }

  @Test("Sliding-window counter: waits until the previous window's weight has shrunk enough")
  func slidingWindowCounter() async {
    let clock = TestClock()
    let limiter = SlidingWindowCounter(rate: .perSecond(10), clock: clock)
    #expect(limiter.tryAcquire(cost: 10))
    let instants = await admissionInstants(of: [1, 4], expecting: [1100, 1500], on: limiter, clock: clock)
    #expect(instants == [1100, 1500])
  }
}
