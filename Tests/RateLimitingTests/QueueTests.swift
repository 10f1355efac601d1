import Clocks
import RateLimiting
import TestSupport
import Testing

/// The waiter queue: its bound, FIFO order, cancellation, deadlines and invalid costs.
@Suite("Waiter queue", .timeLimit(.minutes(3)))
struct QueueTests {
  /// One permit a second, burst 1, with the first permit already taken at t = 0.
  private func exhaustedLimiter(maxQueued: Int = 100) -> (TokenBucket<TestClock<Duration>>, TestClock<Duration>) {
    let clock = TestClock()
    let limiter = TokenBucket(rate: .perSecond(1), burst: 1, maxQueued: maxQueued, clock: clock)
    #expect(limiter.tryAcquire())
    return (limiter, clock)
  }

  /// Starts an `acquire` and waits until it is in line, so that the arrival order is the order of the calls.
  private func queuedAcquire(
    on limiter: TokenBucket<TestClock<Duration>>, cost: Int = 1, maxWait: Duration? = nil,
    since start: TestClock<Duration>.Instant
  ) async -> TaskProbe<Int64> {
    let before = limiter.queuedCount
    let probe = TaskProbe {
      if let maxWait {
        try await limiter.acquire(cost: cost, maxWait: maxWait)
      } else {
        try await limiter.acquire(cost: cost)
      }
      return limiter.clock.milliseconds(since: start)
    }
    #expect(await eventually { limiter.queuedCount == before + 1 })
    return probe
  }

  @Test("A caller that finds the queue full is refused at once with a message naming the limit and the queue")
  func overflow() async throws {
    let (limiter, clock) = exhaustedLimiter(maxQueued: 2)
    let waiting = [
      await queuedAcquire(on: limiter, since: clock.now), await queuedAcquire(on: limiter, since: clock.now),
    ]

    let error = await #expect(throws: RateLimitError.self) { try await limiter.acquire() }
    #expect(error?.kind == .queueFull)
    #expect(error?.description.contains("queue of 2") == true)
    #expect(error?.description.contains("token bucket: 1 per 1.0 seconds, burst 1") == true)
    #expect(limiter.queuedCount == 2, "the refused caller never joined")
    for probe in waiting { probe.cancel() }
  }

  @Test("100 waiters are admitted in the order they arrived")
  func fifoOrder() async {
    let clock = TestClock()
    let limiter = TokenBucket(rate: Rate(1, per: .milliseconds(10)), burst: 1, maxQueued: 100, clock: clock)
    #expect(limiter.tryAcquire())
    let (order, _) = await queueInOrder(100, on: limiter)
    #expect(limiter.queuedCount == 100)
    await stepClock(clock, by: .milliseconds(10), until: 100, of: order)
    #expect(order.elements == Array(0..<100))
  }

  @Test("Cancelling a middle waiter: it leaves at once, and the one behind it is admitted in its place")
  func cancelMiddle() async throws {
    let (limiter, clock) = exhaustedLimiter()
    let start = clock.now
    let first = await queuedAcquire(on: limiter, since: start)
    let middle = await queuedAcquire(on: limiter, since: start)
    let last = await queuedAcquire(on: limiter, since: start)

    middle.cancel()
    #expect(await middle.error() is CancellationError)
    #expect(limiter.queuedCount == 2, "its queue slot is free before the clock moves")

    for _ in 1...2 {
      #expect(await clock.sleeperArrived())
      await clock.advance(by: .seconds(1))
    }
    #expect(await first.value() == 1_000)
    #expect(await last.value() == 2_000, "last takes the 2 s turn the middle one gave back")
  }

  @Test("Cancelling the sleeping head gives its turn to the next waiter")
  func cancelHead() async throws {
    let (limiter, clock) = exhaustedLimiter()
    let head = await queuedAcquire(on: limiter, since: clock.now)
    let next = await queuedAcquire(on: limiter, since: clock.now)
    #expect(await clock.sleeperArrived())

    head.cancel()
    #expect(await head.error() is CancellationError)
    #expect(limiter.queuedCount == 1)

    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(1))
    #expect(await next.value() == 1_000)
  }

  @Test("A deadline that the admission would pass fails at once; one it meets waits and succeeds")
  func deadline() async throws {
    let (limiter, clock) = exhaustedLimiter()
    let start = clock.now

    let tooSoon = await #expect(throws: RateLimitError.self) {
      try await limiter.acquire(cost: 1, maxWait: .milliseconds(999))
    }
    #expect(tooSoon?.kind == .deadlineExceeded)
    #expect(limiter.queuedCount == 0)

    // The deadline accounts for the waiters ahead: behind one waiter, admission is at 2 s.
    let ahead = await queuedAcquire(on: limiter, maxWait: .seconds(1), since: start)
    await #expect(throws: RateLimitError.self) { try await limiter.acquire(cost: 1, maxWait: .milliseconds(1_999)) }
    let behind = await queuedAcquire(on: limiter, maxWait: .seconds(2), since: start)

    for _ in 1...2 {
      #expect(await clock.sleeperArrived())
      await clock.advance(by: .seconds(1))
    }
    #expect(await ahead.value() == 1_000)
    #expect(await behind.value() == 2_000)
  }

  @Test("A cost the limiter can never grant is a clear error, not a hang; so is a cost below 1")
  func invalidCosts() async throws {
    let (limiter, _) = exhaustedLimiter()
    let tooBig = await #expect(throws: RateLimitError.self) { try await limiter.acquire(cost: 2) }
    #expect(tooBig?.kind == .costExceedsCapacity)
    #expect(tooBig?.description.contains("cost of 2 can never be admitted; the most at once is 1") == true)
    let zero = await #expect(throws: RateLimitError.self) { try await limiter.acquire(cost: 0) }
    #expect(zero?.kind == .invalidCost)
    #expect(!limiter.tryAcquire(cost: 2))
    #expect(!limiter.tryAcquire(cost: 0))
    #expect(limiter.queuedCount == 0)
  }

  @Test("tryAcquire never jumps ahead of a waiter, even when permits are free for it")
  func tryAcquireIsFair() async {
    let clock = TestClock()
    let limiter = TokenBucket(rate: .perSecond(1), burst: 2, clock: clock)
    #expect(limiter.tryAcquire(cost: 2))
    let waiter = await queuedAcquire(on: limiter, cost: 2, since: clock.now)  // due at 2 s
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(1))  // one token is free now
    #expect(!limiter.tryAcquire())
    await clock.advance(by: .seconds(1))
    #expect(await waiter.value() == 2_000)
  }

  @Test("A head that wakes late is granted when it goes, so the callers behind it cannot burst past the rate")
  func lateHead() async {
    // GIVEN burst 2 at 1 per second, spent at t = 0, and a clock whose sleepers wake 9 s late
    let base = TestClock()
    let start = base.now
    let limiter = TokenBucket(rate: .perSecond(1), burst: 2, clock: LateClock(base: base, lateness: .seconds(9)))
    #expect(limiter.tryAcquire(cost: 2))
    let admitted = Recorder<Int64>()
    for index in 0..<3 {
      _ = TaskProbe {
        try await limiter.acquire()
        admitted.record(base.milliseconds(since: start))
      }
      #expect(await eventually { limiter.queuedCount == index + 1 })
    }

    // WHEN the head, due at 1 s, wakes at 10 s
    #expect(await base.sleeperArrived())
    await base.advance(to: start.advanced(by: .seconds(10)))

    // THEN only the burst of 2 goes at 10 s; the third waits for the next token
    #expect(await eventually { admitted.count == 2 })
    await settle()
    #expect(admitted.elements == [10_000, 10_000])
    #expect(limiter.queuedCount == 1)
  }

  @Test("Heads that wake slightly late are counted when they go: no two admissions closer than the interval (L1)")
  func slightlyLateHeads() async {
    // GIVEN one per second, spent at t = 0, three waiters, and sleepers that wake 0.5 ms late
    let base = TestClock()
    let start = base.now
    let limiter = LeakyBucket(
      rate: .perSecond(1), capacity: 10, clock: LateClock(base: base, lateness: .microseconds(500)))
    #expect(limiter.tryAcquire())
    let admitted = Recorder<Duration>()
    for index in 0..<3 {
      _ = TaskProbe {
        try await limiter.acquire()
        admitted.record(start.duration(to: base.now))
      }
      #expect(await eventually { limiter.queuedCount == index + 1 })
    }
    // WHEN each wakes 0.5 ms after its due instant
    for second in 1...3 {
      #expect(await base.sleeperArrived())
      await base.advance(to: start.advanced(by: .seconds(second) + .microseconds(500 * second)))
      #expect(await eventually { admitted.count == second })
    }
    // THEN each is counted when it went, so the next is due a whole second later: 1.0005, 2.001, 3.0015 s
    #expect(admitted.elements == (1...3).map { .seconds($0) + .microseconds(500 * $0) })
  }

  @Test("A deadline centuries away is accepted, not an overflow")
  func farDeadline() async {
    let (limiter, clock) = exhaustedLimiter()
    let patient = await queuedAcquire(on: limiter, maxWait: .seconds(400 * 365 * 86_400), since: clock.now)
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(1))
    #expect(await patient.value() == 1_000)
  }

  @Test("A cancelled task whose permit is free now is admitted without suspending, as documented")
  func cancelledFastPath() async {
    let clock = TestClock()
    let limiter = TokenBucket(rate: .perSecond(1), burst: 1, clock: clock)
    let probe = TaskProbe {
      withUnsafeCurrentTask { $0?.cancel() }
      try await limiter.acquire()
    }
    #expect(await probe.finished() != nil)
    #expect(await probe.error() == nil)
    #expect(!limiter.tryAcquire(), "the permit was taken")
  }

  @Test("A task cancelled before it calls acquire is refused without joining the queue")
  func alreadyCancelled() async {
    let (limiter, _) = exhaustedLimiter()
    let probe = TaskProbe {
      withUnsafeCurrentTask { $0?.cancel() }
      try await limiter.acquire()
    }
    #expect(await probe.error() is CancellationError)
    #expect(limiter.queuedCount == 0)
  }
}
