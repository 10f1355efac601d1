import Dispatch
import Domain
import RateLimiting

/// The RateLimiting rows: the cost of an admitted request, and how closely waiting requests keep to schedule.
enum RateLimiterBenchmarks {
  /// Each algorithm, configured so that every request in a measurement is admitted: a million permits per 10 ms is
  /// far more than one core can ask for, and the sliding-window log's entries stay within memory.
  static let algorithms: [(name: String, make: @Sendable () -> any RateLimiter)] = [
    ("tokenBucket", { TokenBucket(rate: fastRate, burst: 1_000_000) }),
    ("gcra", { GCRA(rate: fastRate, burst: 1_000_000) }),
    ("leakyBucket", { LeakyBucket(rate: fastRate, capacity: 1_000_000) }),
    ("fixedWindow", { FixedWindow(rate: fastRate) }),
    ("slidingWindowLog", { SlidingWindowLog(rate: fastRate) }),
    ("slidingWindowCounter", { SlidingWindowCounter(rate: fastRate) }),
  ]

  static let fastRate = Rate(1_000_000, per: .milliseconds(10))

  /// All rows, in report order.
  static func comparisons(quick: Bool) -> [Comparison] {
    let iterations = quick ? 20_000 : 200_000
    var rows: [Comparison] = []
    for algorithm in algorithms {
      rows.append(
        Comparison(
          name: "rate.tryAcquire.\(algorithm.name)", unit: "ns/op", better: .lower, target: 150,
          keel: { try keelTryAcquire(algorithm.make(), iterations: iterations) },
          peer: { try peerTryAcquire(iterations: iterations) }))
      rows.append(
        Comparison(
          name: "rate.acquire.\(algorithm.name)", unit: "ns/op", better: .lower, target: 150,
          keel: { try await keelAcquire(algorithm.make(), iterations: iterations) },
          peer: { try await peerAcquire(iterations: iterations / 10) }))
    }
    rows.append(
      Comparison(
        name: "rate.schedule.userManager", unit: "ms", better: .lower, target: 5, rounds: (1, 3), warmUps: 0,
        keel: { try await scheduleDeviation { LeakyBucket.userManager(clock: ContinuousClock()).acquire } },
        peer: {
          try await scheduleDeviation {
            let peer = DispatchTimerLimiter(permits: 1, interval: .seconds(1), maxQueued: 10)
            return { try await peer.acquire() }
          }
        }))
    return rows
  }

  private static func keelTryAcquire(_ limiter: any RateLimiter, iterations: Int) throws -> Double {
    var admitted = 0
    let cost = nanosecondsPerCall(iterations: iterations) { if limiter.tryAcquire() { admitted += 1 } }
    guard admitted == iterations else { throw BenchmarkError(description: "only \(admitted) admitted") }
    return cost
  }

  // The async loops are written out rather than passed to `nanosecondsPerCall`, so that neither side pays for an
  // async closure call per iteration on top of its own cost.
  private static func keelAcquire(_ limiter: any RateLimiter, iterations: Int) async throws -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<iterations { try await limiter.acquire() }
    return nanoseconds(start.duration(to: clock.now)) / Double(iterations)
  }

  private static func peerTryAcquire(iterations: Int) throws -> Double {
    let peer = DispatchTimerLimiter(permits: Int.max, interval: .seconds(3_600), maxQueued: 10)
    defer { peer.stop() }
    var admitted = 0
    let cost = nanosecondsPerCall(iterations: iterations) { if peer.tryAcquire() { admitted += 1 } }
    guard admitted == iterations else { throw BenchmarkError(description: "peer admitted only \(admitted)") }
    return cost
  }

  private static func peerAcquire(iterations: Int) async throws -> Double {
    let peer = DispatchTimerLimiter(permits: Int.max, interval: .seconds(3_600), maxQueued: 10)
    defer { peer.stop() }
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<iterations { try await peer.acquire() }
    return nanoseconds(start.duration(to: clock.now)) / Double(iterations)
  }

  /// Ten requests fired together through a fresh one-per-second limiter on the real clock: the largest distance, in
  /// ms, between the instant each was admitted and its ideal instant (start + i seconds).
  private static func scheduleDeviation(
    _ makeAcquire: @Sendable () -> @Sendable () async throws -> Void
  ) async throws -> Double {
    let acquire = makeAcquire()
    let clock = ContinuousClock()
    let start = clock.now
    let sorted = try await withThrowingTaskGroup(of: Duration.self) { group in
      for _ in 0..<10 {
        group.addTask {
          try await acquire()
          return start.duration(to: clock.now)
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }.sorted()
    }
    let deviations = sorted.enumerated().map { index, instant in
      abs(nanoseconds(instant) - Double(index) * 1e9) / 1e6
    }
    return deviations.max() ?? .infinity
  }
}
