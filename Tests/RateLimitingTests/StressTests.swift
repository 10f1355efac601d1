import Clocks
import RateLimiting
import TestSupport
import Testing

/// Many tasks at once: the admitted count never exceeds what the algorithm allows, and nobody is lost.
@Suite("Stress", .timeLimit(.minutes(3)))
struct StressTests {
  /// Each algorithm with the number of admissions it allows at a single instant.
  enum Algorithm: String, CaseIterable, CustomTestStringConvertible {
    case tokenBucket, gcra, leakyBucket, fixedWindow, slidingWindowLog, slidingWindowCounter

    var testDescription: String { rawValue }

    /// A limiter on a frozen clock and its bound at that instant.
    func make(clock: TestClock<Duration>) -> (limiter: any RateLimiter, bound: Int) {
      let rate = Rate.perSecond(50)
      return switch self {
      case .tokenBucket: (TokenBucket(rate: rate, burst: 50, clock: clock), 50)
      case .gcra: (GCRA(rate: rate, burst: 50, clock: clock), 50)
      case .leakyBucket: (LeakyBucket(rate: rate, capacity: 50, clock: clock), 1)
      case .fixedWindow: (FixedWindow(rate: rate, clock: clock), 50)
      case .slidingWindowLog: (SlidingWindowLog(rate: rate, clock: clock), 50)
      case .slidingWindowCounter: (SlidingWindowCounter(rate: rate, clock: clock), 50)
      }
    }
  }

  @Test(
    "1,000 concurrent tryAcquire calls at one instant admit exactly the algorithm's bound",
    arguments: Algorithm.allCases)
  func concurrentTryAcquire(_ algorithm: Algorithm) async {
    let (limiter, bound) = algorithm.make(clock: TestClock())
    let admitted = await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<1_000 { group.addTask { limiter.tryAcquire() } }
      return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    #expect(admitted == bound)
  }

  @Test("1,000 concurrent acquires: never more than burst + rate × t admitted by t, and all of them in the end")
  func concurrentAcquire() async {
    // GIVEN 100 per second, burst 10, room for everyone to wait
    let clock = TestClock()
    let start = clock.now
    let limiter = TokenBucket(rate: .perSecond(100), burst: 10, maxQueued: 1_000, clock: clock)
    let admitted = Recorder<Int64>()

    // WHEN 1,000 tasks acquire at once
    let probes = (0..<1_000).map { _ in
      TaskProbe {
        try await limiter.acquire()
        admitted.record(clock.milliseconds(since: start))
      }
    }
    #expect(await eventually { admitted.count == 10 && limiter.queuedCount == 990 })

    // THEN stepping the clock 100 ms at a time, the count admitted stays within the bound
    var violations: [String] = []
    while admitted.count < 1_000, clock.milliseconds(since: start) < 12_000 {
      _ = await clock.sleeperArrived()
      await clock.advance(by: .milliseconds(100))
      await settle(yields: 200)
      let elapsed = clock.milliseconds(since: start)
      let bound = 10 + Int(elapsed / 10)
      if admitted.count > bound { violations.append("\(admitted.count) admitted by \(elapsed) ms, bound \(bound)") }
    }
    #expect(violations.isEmpty, "\(violations.prefix(3))")
    #expect(admitted.count == 1_000)
    #expect(admitted.elements.max() ?? 0 <= 12_000)
    for probe in probes { #expect(await probe.finished() != nil) }
  }

  @Test("Cancelling every other one of 200 waiters: the rest are all admitted, in order, with no slot lost")
  func concurrentCancellation() async {
    let clock = TestClock()
    let limiter = TokenBucket(rate: Rate(1, per: .milliseconds(10)), burst: 1, maxQueued: 200, clock: clock)
    #expect(limiter.tryAcquire())
    let (order, probes) = await queueInOrder(200, on: limiter)
    #expect(limiter.queuedCount == 200)
    let cancelled = stride(from: 1, to: 200, by: 2).map { probes[$0] }
    await withTaskGroup(of: Void.self) { group in
      for probe in cancelled { group.addTask { probe.cancel() } }
    }
    #expect(await eventually { limiter.queuedCount == 100 })
    await stepClock(clock, by: .milliseconds(10), until: 100, of: order)
    #expect(order.elements == Array(stride(from: 0, to: 200, by: 2)))
    for probe in cancelled { #expect(await probe.error() is CancellationError) }
  }
}
