import Foundation

/// Whether a smaller or a larger measurement is better.
enum Better: String, Sendable {
  case lower, higher
}

/// One measured quantity, taken for Keel and for its peer in alternating rounds.
struct Comparison: Sendable {
  /// A dotted name that `--filter` matches against, such as `rate.tryAcquire.tokenBucket`.
  let name: String
  /// The unit of one measurement, such as `ns/op` or `ms`.
  let unit: String
  let better: Better
  /// The target Keel must meet, in `unit`, shown in the table.
  let target: Double?
  /// The least ``ResultRow/ratio`` Keel must reach against the peer, for a target that is relative rather than
  /// absolute (such as "at least 0.9 × the peer's throughput"), shown in the table.
  var minRatio: Double? = nil
  /// Measured rounds per side in `--quick` and in a full run.
  var rounds: (quick: Int, full: Int) = (3, 9)
  /// Unmeasured rounds per side first.
  var warmUps = 1
  /// Takes one measurement of Keel.
  let keel: @Sendable () async throws -> Double
  /// Takes one measurement of the peer.
  let peer: @Sendable () async throws -> Double
  /// Runs once after the last round, whether or not the rounds succeeded: releases what the rounds shared (a server,
  /// sessions), which the first round that needs it starts.
  var finish: @Sendable () async -> Void = {}

  /// Warms both sides up, then measures them in alternating rounds (Keel, peer, Keel, peer, …) so that drift in the
  /// machine's state affects both alike, and reports the medians; then runs ``finish``.
  func run(quick: Bool) async throws -> ResultRow {
    do {
      let row = try await measure(quick: quick)
      await finish()
      return row
    } catch {
      await finish()
      throw error
    }
  }

  private func measure(quick: Bool) async throws -> ResultRow {
    let rounds = quick ? self.rounds.quick : self.rounds.full
    // KEEL_BENCH_SIDE=keel (or peer) measures that side in both columns: for profiling one side alone under `perf`,
    // the machine loaded exactly as in a real run.
    let side = ProcessInfo.processInfo.environment["KEEL_BENCH_SIDE"]
    let keel = side == "peer" ? self.peer : self.keel
    let peer = side == "keel" ? self.keel : self.peer
    for _ in 0..<warmUps {
      _ = try await keel()
      _ = try await peer()
    }
    var keelRounds: [Double] = []
    var peerRounds: [Double] = []
    for _ in 0..<rounds {
      keelRounds.append(try await keel())
      peerRounds.append(try await peer())
    }
    return ResultRow(
      name: name, unit: unit, keel: median(keelRounds), peer: median(peerRounds), better: better, target: target,
      minRatio: minRatio)
  }
}

/// The median of a non-empty list.
func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
