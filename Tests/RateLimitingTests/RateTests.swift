import Clocks
import RateLimiting
import Testing

@Suite("Rate")
struct RateTests {
  @Test("A fraction of a nanosecond in the interval rounds up: never faster than the rate")
  func roundsUp() async {
    let clock = TestClock()
    let start = clock.now
    let limiter = TokenBucket(rate: Rate(1, per: .nanoseconds(1) + .nanoseconds(1) / 2), burst: 1, clock: clock)
    #expect(limiter.tryAcquire())
    await clock.advance(to: start.advanced(by: .nanoseconds(1)))
    #expect(!limiter.tryAcquire(), "1.5 ns is treated as 2 ns, not 1 ns")
    await clock.advance(to: start.advanced(by: .nanoseconds(2)))
    #expect(limiter.tryAcquire())
  }

  @Test("Descriptions name the permits and the interval")
  func description() {
    #expect(Rate.perSecond(5).description == "5 per 1.0 seconds")
    #expect(Rate.perMinute(60) == Rate(60, per: .seconds(60)))
  }
}
