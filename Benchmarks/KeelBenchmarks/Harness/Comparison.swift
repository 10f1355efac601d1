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
  /// Measured rounds per side in `--quick` and in a full run.
  var rounds: (quick: Int, full: Int) = (3, 9)
  /// Unmeasured rounds per side first.
  var warmUps = 1
  /// Takes one measurement of Keel.
  let keel: @Sendable () async throws -> Double
  /// Takes one measurement of the peer.
  let peer: @Sendable () async throws -> Double

  /// Warms both sides up, then measures them in alternating rounds (Keel, peer, Keel, peer, …) so that drift in the
  /// machine's state affects both alike, and reports the medians.
  func run(quick: Bool) async throws -> ResultRow {
    let rounds = quick ? self.rounds.quick : self.rounds.full
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
      name: name, unit: unit, keel: median(keelRounds), peer: median(peerRounds), better: better, target: target)
  }
}

/// The median of a non-empty list.
func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
