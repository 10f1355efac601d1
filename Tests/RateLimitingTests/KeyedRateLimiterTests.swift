import Clocks
import RateLimiting
import TestSupport
import Testing

@Suite("Keyed rate limiter", .timeLimit(.minutes(3)))
struct KeyedRateLimiterTests {
  @Test("Each key gets its own limiter, created once, on first use")
  func perKey() {
    let clock = TestClock()
    let created = Recorder<String>()
    let limits = KeyedRateLimiter<String> { key in
      created.record(key)
      return TokenBucket(rate: .perSecond(1), burst: 2, clock: clock)
    }
    #expect(limits.tryAcquire("users"))
    #expect(limits.tryAcquire("users"))
    #expect(!limits.tryAcquire("users"), "users has spent its burst")
    #expect(limits.tryAcquire("events"), "events is limited separately")
    #expect(created.elements == ["users", "events"])
    #expect(limits.keyCount == 2)

    limits.removeLimiter(for: "users")
    #expect(limits.tryAcquire("users"), "a removed key starts afresh")
  }

  @Test("The factory runs outside the lock: it may use the keyed limiter itself")
  func reentrantFactory() {
    let clock = TestClock()
    let seen = Recorder<Int>()
    let box = Recorder<KeyedRateLimiter<String>>()
    let limits = KeyedRateLimiter<String> { _ in
      seen.record(box.elements.first?.keyCount ?? -1)
      return TokenBucket(rate: .perSecond(1), burst: 1, clock: clock)
    }
    box.record(limits)
    #expect(limits.tryAcquire("a"))
    #expect(limits.tryAcquire("b"))
    #expect(seen.elements == [0, 1])
  }

  @Test("A global limiter caps the keys together")
  func global() {
    let clock = TestClock()
    let limits = KeyedRateLimiter<String>(global: TokenBucket(rate: .perSecond(1), burst: 3, clock: clock)) { _ in
      TokenBucket(rate: .perSecond(1), burst: 2, clock: clock)
    }
    #expect(limits.tryAcquire("a"))
    #expect(limits.tryAcquire("a"))
    #expect(limits.tryAcquire("b"))
    #expect(!limits.tryAcquire("b"), "b has its own permit left, but the global burst of 3 is spent")
  }

  @Test("acquire waits for the key's limiter, then the global one")
  func acquireWaits() async {
    let clock = TestClock()
    let start = clock.now
    let limits = KeyedRateLimiter<String>(global: TokenBucket(rate: .perSecond(10), burst: 10, clock: clock)) { _ in
      TokenBucket(rate: .perSecond(1), burst: 1, clock: clock)
    }
    #expect(limits.tryAcquire("slow"))
    let waiting = TaskProbe {
      try await limits.acquire("slow")
      return clock.milliseconds(since: start)
    }
    #expect(await clock.sleeperArrived())
    #expect(limits.tryAcquire("other"), "a waiting key does not hold up the others")
    await clock.advance(by: .seconds(1))
    #expect(await waiting.value() == 1_000)
  }
}
