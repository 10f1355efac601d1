/// The samples of the latency rounds, so that a quantity's p50 and p99 rows read the same rounds: the first latency row
/// to run measures and keeps each round's samples, and the other takes them back in the same order. Percentiles of one
/// distribution, rather than of two runs a minute apart on a machine whose `fsync` cost drifts. Used by the event
/// tracker's `track` latency and the chat's send-to-receive latency.
///
/// A row run alone (`--filter trackLatency.p99`) finds nothing kept and measures its own rounds.
actor LatencyRounds {
  /// Which side a round measured.
  enum Side: Hashable {
    case keel, peer
  }

  private struct Reader: Hashable {
    let row: String
    let side: Side
  }

  private var kept: [Side: [[Double]]] = [:]
  private var read: [Reader: Int] = [:]

  /// The next round of `side` that `row` has not read yet: a kept one, or a new one from `measure`, then kept.
  func samples(
    of side: Side, for row: String, _ measure: @Sendable () async throws -> [Double]
  ) async throws -> [Double] {
    let reader = Reader(row: row, side: side)
    let index = read[reader, default: 0]
    if index == kept[side, default: []].count { kept[side, default: []].append(try await measure()) }
    read[reader] = index + 1
    return kept[side, default: []][index]
  }

  /// The `fraction` percentile (in `0...1`) of `values` by nearest rank: the smallest value that at least `fraction`
  /// of them do not exceed. The harness keeps one number per round, so the latency rows compute their percentiles
  /// here, from each round's sorted samples.
  static func percentile(_ fraction: Double, of values: [Double]) -> Double {
    let sorted = values.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
  }
}
