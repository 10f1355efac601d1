/// The event tracker's rows (REQUIREMENTS E2, E5): durable `track` latency and throughput against the source approach,
/// and delivery throughput to a local Sandbox.
///
/// Keel runs as shipped: `track` returns after its event's SQLite transaction is committed (WAL,
/// `synchronous = FULL`), one transaction and so one `fsync` per call, in the temporary directory. The peer,
/// ``EventTrackerNaivePeer``, rewrites the whole pending array (about 2.4 MB at 10,000 events) into one file on every
/// event, without `fsync`.
///
/// - `trackLatency.p50` / `.p99`: each round tracks 2,000 events one after another onto 10,000 pending events; the
///   percentiles are taken by nearest rank from that round's sorted samples, and each row is the median over rounds.
///   Both rows read the same rounds (``LatencyRounds``). The peer takes 20 samples a round, so its p99 is
///   its slowest.
/// - `trackThroughput`: one caller; `trackThroughput.concurrent8`: eight tasks tracking at once. Target: at least
///   50× the peer, at 10,000 pending.
/// - `deliveryThroughput`: from creating a tracker on a file holding 20,000 pending events until all are delivered
///   to the Sandbox over loopback HTTP, in the default batches of 100, each acknowledged by a committed delete.
///   Target: 5,000 events/s. The peer POSTs one event per request and rewrites its file after each, on 1,000 events:
///   its rate falls as the file grows (about 650 events/s on 200, 250 on 1,000), so the ratio flatters it.
///
/// The tracking rows' uploader is kept idle (``EventTrackerBenchFixture/withPrefilledTracker(_:)``), so they measure
/// `track` alone; with the default ``EventTrackerConfiguration/flushCount`` of 20 an app also pays one upload and one
/// acknowledging transaction per 20 tracks.
///
/// On the 2-core Linux development VM, where an `fsync` after a 4 KiB append took 0.25 ms at p50 and 1.4 ms at p99,
/// a full release run read: p50 247 µs and p99 813 µs (peer 65 and 74 ms); 3,035 events/s with one caller (203× the
/// peer's 15) and 4,843 with eight tasks (306×); delivery 15,900 events/s (peer 247). `track` costs about one
/// `fsync`: the 50× target holds while a synced commit takes under about 1.3 ms, and is missed on a disk as slow as
/// the one ``DurableQueueBenchmarks`` describes (3 ms: about 300 events/s, 20×). Eight tasks gain little because
/// each `track` is still its own transaction; committing concurrent tracks together (group commit) would divide the
/// `fsync`s by the group's size: 100 events per transaction enqueue at about 69,000 events/s here.
enum EventTrackerBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] {
    let latencySamples = (keel: quick ? 200 : 2_000, peer: quick ? 5 : 20)
    let tracked = (keel: quick ? 200 : 1_000, peer: quick ? 5 : 20)
    let delivered = (keel: quick ? 5_000 : 20_000, peer: quick ? 200 : 1_000)
    let sandbox = DomainBenchSandbox()
    let rounds = LatencyRounds()
    return [
      latencyRow(0.5, "p50", samples: latencySamples, rounds),
      latencyRow(0.99, "p99", samples: latencySamples, rounds),
      Comparison(
        name: "domain.eventTracker.trackThroughput", unit: "events/s", better: .higher, target: nil, minRatio: 50,
        keel: { try await EventTrackerTracking.keelThroughput(events: tracked.keel, tasks: 1) },
        peer: { try await EventTrackerTracking.peerThroughput(events: tracked.peer, tasks: 1) }),
      Comparison(
        name: "domain.eventTracker.trackThroughput.concurrent8", unit: "events/s", better: .higher, target: nil,
        minRatio: 50,
        keel: { try await EventTrackerTracking.keelThroughput(events: tracked.keel, tasks: 8) },
        peer: { try await EventTrackerTracking.peerThroughput(events: tracked.peer, tasks: 8) }),
      Comparison(
        name: "domain.eventTracker.deliveryThroughput", unit: "events/s", better: .higher, target: 5_000,
        keel: { try await EventTrackerDelivery.keelThroughput(events: delivered.keel, sandbox) },
        peer: { try await EventTrackerDelivery.peerThroughput(events: delivered.peer, sandbox) },
        finish: { await sandbox.stop() }),
    ]
  }

  /// The `fraction` percentile of `track` latency, per round; both latency rows read the same rounds.
  private static func latencyRow(
    _ fraction: Double, _ label: String, samples: (keel: Int, peer: Int), _ rounds: LatencyRounds
  ) -> Comparison {
    let name = "domain.eventTracker.trackLatency.\(label)"
    return Comparison(
      name: name, unit: "µs", better: .lower, target: nil,
      keel: {
        let latencies = try await rounds.samples(of: .keel, for: name) {
          try await EventTrackerTracking.keelLatencies(samples: samples.keel)
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
