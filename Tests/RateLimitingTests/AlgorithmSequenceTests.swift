import Clocks
import KeelRandom
import RateLimiting
import TestSupport
import Testing

/// The exact admit/reject sequence of every algorithm across refill and window boundaries, bursts and costs above 1.
@Suite("Algorithm sequences")
struct AlgorithmSequenceTests {
  /// Token bucket and GCRA share this script: 2 per second, burst 3. GCRA must admit exactly what the bucket does.
  static let twoPerSecondBurstThree = [
    t(0, 1, true), t(0, 1, true), t(0, 1, true), t(0, 1, false),  // the burst, then empty
    t(499, 1, false),  // 0.998 of a token
    t(500, 1, true), t(500, 1, false),  // exactly one token at 500 ms
    t(2000, 4, false), t(2000, 3, true), t(2000, 1, false),  // refill caps at the burst; cost 4 never fits
    t(2750, 2, false), t(2750, 1, true),  // 1.5 tokens
    t(3000, 1, true), t(3000, 1, false),  // 0.5 + 0.5
  ]

  @Test("Token bucket: burst, refill to the nanosecond, cap at burst, cost > 1")
  func tokenBucket() async {
    let steps = Self.twoPerSecondBurstThree
    let observed = await play(steps) { TokenBucket(rate: .perSecond(2), burst: 3, clock: $0) }
    #expect(observed.map(\.description) == steps.map(\.description))
  }

  @Test("GCRA admits exactly what the token bucket admits")
  func gcra() async {
    let steps = Self.twoPerSecondBurstThree
    let observed = await play(steps) { GCRA(rate: .perSecond(2), burst: 3, clock: $0) }
    #expect(observed.map(\.description) == steps.map(\.description))
  }

  @Test("Leaky bucket: constant spacing, no burst after a quiet spell, cost 2 takes two spacings")
  func leakyBucket() async {
    let steps = [
      t(0, 1, true), t(0, 1, false),
      t(499, 1, false), t(500, 1, true),
      t(1500, 1, true), t(1700, 1, false),  // idle since 1000 ms, yet no burst
      t(2000, 2, true), t(2999, 1, false), t(3000, 1, true),
      t(3500, 4, false),  // more than the capacity of 3
    ]
    let observed = await play(steps) { LeakyBucket(rate: .perSecond(2), capacity: 3, clock: $0) }
    #expect(observed.map(\.description) == steps.map(\.description))
  }

  @Test("Fixed window: the count resets exactly at each window start")
  func fixedWindow() async {
    let steps = [
      t(0, 1, true), t(0, 1, true), t(0, 1, true), t(0, 1, false),
      t(999, 1, false),
      t(1000, 2, true), t(1000, 1, true), t(1000, 1, false),
      t(2500, 3, true), t(2500, 1, false), t(2999, 1, false),
      t(3000, 1, true), t(3000, 4, false),
    ]
    let observed = await play(steps) { FixedWindow(rate: .perSecond(3), clock: $0) }
    #expect(observed.map(\.description) == steps.map(\.description))
  }

  @Test("Sliding-window log: an admission leaves the window exactly one interval later")
  func slidingWindowLog() async {
    let steps = [
      t(0, 1, true), t(400, 2, true), t(400, 1, false),
      t(999, 1, false),  // a fixed window would have reset here only at 1000; the log still holds 3
      t(1000, 1, true), t(1000, 1, false),  // the admission at 0 left
      t(1399, 1, false), t(1400, 2, true), t(1400, 1, false),  // the cost-2 admission at 400 left
      t(2000, 1, true),
      t(2400, 3, false), t(2400, 2, true),  // 1400 left; 2000 still holds 1
    ]
    let observed = await play(steps) { SlidingWindowLog(rate: .perSecond(3), clock: $0) }
    #expect(observed.map(\.description) == steps.map(\.description))
  }

  @Test("Sliding-window counter: the previous window's count weighs in by its overlap")
  func slidingWindowCounter() async {
    let steps = [
      t(0, 10, true), t(0, 1, false),
      t(1000, 1, false),  // 10 × 100% + 1 > 10
      t(1099, 1, false),  // 10 × 90.1% + 1 > 10
      t(1100, 1, true), t(1100, 1, false),  // 10 × 90% + 1 = 10
      t(1500, 4, true), t(1500, 1, false),  // 10 × 50% + 1 + 4 = 10
      t(2000, 5, true), t(2000, 1, false),  // 5 × 100% + 5 = 10
      t(3500, 7, true), t(3500, 1, false),  // 5 × 50% + 7 = 9.5
      t(5000, 10, true),  // two windows on: nothing weighs in
    ]
    let observed = await play(steps) { SlidingWindowCounter(rate: .perSecond(10), clock: $0) }
    #expect(observed.map(\.description) == steps.map(\.description))
  }

  @Test("Token bucket and GCRA compute the same admission instant for 5,000 pseudo-random requests")
  func tokenBucketMatchesGCRA() {
    var generator = SplitMix64(seed: 0x6b65_656c)
    let rate = Rate(7, per: .milliseconds(333))
    var bucket = TokenBucketPolicy(rate: rate, burst: 4)
    var gcra = GCRAPolicy(rate: rate, burst: 4)
    var now: Int64 = 0
    var mismatches: [String] = []
    var waited = 0
    for step in 0..<5_000 {
      now += Int64(generator.next() % 120_000_000)
      let cost = Int(generator.next() % 4) + 1
      let bucketDue = bucket.earliestAdmission(cost: cost, notBefore: now)
      let gcraDue = gcra.earliestAdmission(cost: cost, notBefore: now)
      if bucketDue != gcraDue { mismatches.append("step \(step): bucket \(bucketDue) ns, GCRA \(gcraDue) ns") }
      if bucketDue > now { waited += 1 }
      // Grant at the due instant, as the limiter does for a waiter, so later steps see queued-up state too.
      bucket.grant(cost: cost, at: bucketDue)
      gcra.grant(cost: cost, at: bucketDue)
      now = bucketDue
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    #expect(waited > 100 && waited < 4_900, "the sequence must exercise both admission and waiting")
  }
}
