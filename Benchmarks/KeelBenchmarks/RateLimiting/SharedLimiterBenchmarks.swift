import Foundation
import LocalPostgres
import PostgresLimits
import RateLimiting

/// The shared limiter's rows (REQUIREMENTS L2): what one admission costs through PostgreSQL beside the in-process
/// limiter it replaces, and how many admissions a second the database sustains for 8 concurrent clients under a
/// 1,000/s policy, the ceiling of one row per key.
///
/// The server is the one `.ci/run` started (`KEEL_TEST_POSTGRES`), or a cluster of the bench's own.
enum SharedLimiterBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] {
    let fixture = Fixture()
    let rounds = LatencyRounds()
    let samples = quick ? 50 : 1_000
    let admissions = quick ? 200 : 3_000
    return [
      latencyRow(0.5, "p50", samples: samples, fixture, rounds),
      latencyRow(0.99, "p99", samples: samples, fixture, rounds),
      Comparison(
        name: "rate.shared.postgres.admissions.concurrent8", unit: "admissions/s", better: .higher, target: nil,
        rounds: (1, 3),
        keel: { try await throughput(admissions, on: try await fixture.limiter(rate: policy)) },
        peer: { try await throughput(admissions, on: GCRA(rate: policy, burst: 1, maxQueued: 10_000)) },
        finish: { await fixture.stop() }),
    ]
  }

  /// 1,000 a second, one at a time.
  private static let policy = Rate(1_000, per: .seconds(1))
  /// A rate no admission waits for: the latency rows measure the admission itself.
  private static let unbounded = Rate(1_000_000, per: .seconds(1))

  private static func latencyRow(
    _ fraction: Double, _ label: String, samples: Int, _ fixture: Fixture, _ rounds: LatencyRounds
  ) -> Comparison {
    let name = "rate.shared.postgres.admission.\(label)"
    return Comparison(
      name: name, unit: "µs", better: .lower, target: nil, rounds: (1, 3),
      keel: {
        let limiter = try await fixture.limiter(rate: unbounded, burst: 1_000_000)
        let measured = try await rounds.samples(of: .keel, for: name) { try await latencies(samples, of: limiter) }
        return LatencyRounds.percentile(fraction, of: measured)
      },
      peer: {
        let limiter = GCRA(rate: unbounded, burst: 1_000_000)
        let measured = try await rounds.samples(of: .peer, for: name) { try await latencies(samples, of: limiter) }
        return LatencyRounds.percentile(fraction, of: measured)
      })
  }

  /// Each of `count` admissions' latency, in µs, one after the other.
  private static func latencies(_ count: Int, of limiter: any RateLimiter) async throws -> [Double] {
    let clock = ContinuousClock()
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for _ in 0..<count {
      let start = clock.now
      try await limiter.acquire()
      samples.append(nanoseconds(start.duration(to: clock.now)) / 1_000)
    }
    return samples
  }

  /// Admissions a second for `count` admissions shared by 8 concurrent tasks.
  private static func throughput(_ count: Int, on limiter: any RateLimiter) async throws -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask { for _ in 0..<(count / 8) { try await limiter.acquire() } }
      }
      try await group.waitForAll()
    }
    return Double(count / 8 * 8) / (nanoseconds(start.duration(to: clock.now)) / 1e9)
  }

  /// The store, opened on first use; each limiter it makes has a key of its own.
  private actor Fixture {
    private var store: PostgresGCRAStore?

    func limiter(rate: Rate, burst: Int = 1) async throws -> SharedRateLimiter<ContinuousClock> {
      let store = try await opened()
      return SharedRateLimiter(
        key: "bench/\(UUID().uuidString)", rate: rate, burst: burst, maxQueued: 10_000, store: store,
        clock: ContinuousClock())
    }

    func stop() async {
      await store?.shutdown()
      store = nil
    }

    private func opened() async throws -> PostgresGCRAStore {
      if let store { return store }
      let opened = try PostgresGCRAStore(address: PostgresStoreAddress(try await LocalPostgres.url()))
      store = opened
      return opened
    }
  }
}
