import Persistence

/// The event tracker's rows (REQUIREMENTS E2, E5, E14): durable `track` latency and throughput in both durability
/// levels against the source approach, and delivery throughput to a local Sandbox.
///
/// Keel runs as shipped: `track` returns after its event's SQLite transaction is committed (WAL), with
/// `synchronous = NORMAL` in the crash-safe level (the default: no `fsync`, the caller commits on its own thread)
/// and `synchronous = FULL` in the power-safe level (one `fsync` per transaction), in the temporary directory. The
/// peer, ``EventTrackerNaivePeer``, rewrites the whole pending array (about 2.4 MB at 10,000 events) into one file on
/// every event, without `fsync`.
///
/// - `<level>.trackLatency.p50` / `.p99`: each round tracks 2,000 events one after another onto 10,000 pending
///   events; the percentiles are taken by nearest rank from that round's sorted samples, and each row is the median
///   over rounds. Both rows of a level read the same rounds (``LatencyRounds``). The peer takes 20 samples a round,
///   so its p99 is its slowest. Crash-safe target: p50 ≤ 30 µs.
/// - `<level>.trackThroughput`: one caller (crash-safe target: 20,000 events/s); `.concurrent8`: eight tasks
///   tracking at once. Both at least 50× the peer, at 10,000 pending.
/// - `deliveryThroughput`: from creating a tracker on a file holding 20,000 pending events until all are delivered
///   to the Sandbox over loopback HTTP, in the default batches of 100, each acknowledged by a committed delete.
///   Target: 5,000 events/s. The peer POSTs one event per request and rewrites its file after each, on 1,000 events:
///   its rate falls as the file grows, so the ratio flatters it.
///
/// The tracking rows' uploader is kept idle (``EventTrackerBenchFixture/withPrefilledTracker(_:_:)``), so they
/// measure `track` alone; with the default ``EventTrackerConfiguration/flushCount`` of 20 an app also pays one upload
/// and one acknowledging transaction per 20 tracks.
///
/// On the 2-core Linux development VM a release run read (2026-11-26, at `7149574`): crash-safe p50 26.5 µs, p99 73 µs,
/// 24,301 events/s with one caller and 27,026 with eight; power-safe p50 246 µs, p99 397 µs, 3,336 and 14,809
/// events/s; the peer 76 ms and 13.1 events/s; delivery 15,057 events/s. The crash-safe targets are met since the
/// queue's schema v2 halved the log pages a transaction writes (Decision 0017).
enum EventTrackerBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] {
    let latencySamples = (keel: quick ? 200 : 2_000, peer: quick ? 5 : 20)
    let delivered = (keel: quick ? 5_000 : 20_000, peer: quick ? 200 : 1_000)
    let sandbox = DomainBenchSandbox()
    // Each level's latency rows share their own rounds.
    return [Durability.survivesCrash, .survivesPowerLoss].flatMap { durability in
      trackingRows(durability, quick: quick, latencySamples: latencySamples, LatencyRounds())
    } + [
      Comparison(
        name: "domain.eventTracker.deliveryThroughput", unit: "events/s", better: .higher, target: 5_000,
        keel: { try await EventTrackerDelivery.keelThroughput(events: delivered.keel, sandbox) },
        peer: { try await EventTrackerDelivery.peerThroughput(events: delivered.peer, sandbox) },
        finish: { await sandbox.stop() })
    ]
  }

  /// The tracking rows of one durability level: latency p50 and p99, throughput with one caller and with eight.
  /// The crash-safe level has the targets: p50 at most 30 µs, 20,000 events/s for one caller.
  private static func trackingRows(
    _ durability: Durability, quick: Bool, latencySamples: (keel: Int, peer: Int), _ rounds: LatencyRounds
  ) -> [Comparison] {
    let level = durability == .survivesCrash ? "crashSafe" : "powerSafe"
    let crashSafe = durability == .survivesCrash
    // More events where each costs microseconds, so that a round lasts long enough to measure.
    let tracked = (keel: crashSafe ? (quick ? 2_000 : 20_000) : (quick ? 200 : 1_000), peer: quick ? 5 : 20)
    return [
      latencyRow(
        0.5, "p50", durability, level: level, target: crashSafe ? 30 : nil, samples: latencySamples, rounds),
      latencyRow(0.99, "p99", durability, level: level, target: nil, samples: latencySamples, rounds),
      Comparison(
        name: "domain.eventTracker.\(level).trackThroughput", unit: "events/s", better: .higher,
        target: crashSafe ? 20_000 : nil, minRatio: 50,
        keel: { try await EventTrackerTracking.keelThroughput(events: tracked.keel, tasks: 1, durability) },
        peer: { try await EventTrackerTracking.peerThroughput(events: tracked.peer, tasks: 1) }),
      Comparison(
        name: "domain.eventTracker.\(level).trackThroughput.concurrent8", unit: "events/s", better: .higher,
        target: nil, minRatio: 50,
        keel: { try await EventTrackerTracking.keelThroughput(events: tracked.keel, tasks: 8, durability) },
        peer: { try await EventTrackerTracking.peerThroughput(events: tracked.peer, tasks: 8) }),
    ]
  }

  /// The `fraction` percentile of `track` latency at `durability`, per round; both latency rows of a level read the
  /// same rounds.
  private static func latencyRow(
    _ fraction: Double, _ label: String, _ durability: Durability, level: String, target: Double?,
    samples: (keel: Int, peer: Int), _ rounds: LatencyRounds
  ) -> Comparison {
    let name = "domain.eventTracker.\(level).trackLatency.\(label)"
    return Comparison(
      name: name, unit: "µs", better: .lower, target: target,
      keel: {
        let latencies = try await rounds.samples(of: .keel, for: name) {
          try await EventTrackerTracking.keelLatencies(samples: samples.keel, durability)
        }
        return LatencyRounds.percentile(fraction, of: latencies)
      },
      peer: {
        let latencies = try await rounds.samples(of: .peer, for: name) {
          try await EventTrackerTracking.peerLatencies(samples: samples.peer)
        }
        return LatencyRounds.percentile(fraction, of: latencies)
      })
  }
}
