/// One line of the report: Keel's and the peer's medians and their ratio.
struct ResultRow {
  let name: String
  let unit: String
  let keel: Double
  let peer: Double
  let better: Better
  let target: Double?
  /// The least ``ratio`` Keel must reach, for a target relative to the peer.
  var minRatio: Double? = nil

  /// Oriented so that a ratio above 1 always means Keel is better. Measurements are floored at 0.001 of their unit so
  /// that a perfect zero does not divide by zero.
  var ratio: Double {
    let (keel, peer) = (max(keel, 0.001), max(peer, 0.001))
    return better == .lower ? peer / keel : keel / peer
  }

  /// Whether Keel meets the row's target; `nil` when the row has none.
  var meetsTarget: Bool? {
    target.map { better == .lower ? keel <= $0 : keel >= $0 }
  }

  /// Whether ``ratio`` reaches the row's ``minRatio``; `nil` when the row has none.
  var meetsMinRatio: Bool? {
    minRatio.map { ratio >= $0 }
  }

  /// Targets are for release builds; a debug build's numbers are not judged against them.
  static var judgesTargets: Bool {
    #if DEBUG
      false
    #else
      true
    #endif
  }

  /// `{"name","unit","keel","peer","ratio","better"}`, in that order.
  var json: String {
    """
    {"name":"\(name)","unit":"\(unit)","keel":\(format(keel)),"peer":\(format(peer)),\
    "ratio":\(format(ratio)),"better":"\(better.rawValue)"}
    """
  }

  /// The cells of the table, in column order.
  /// An absolute target reads `≥ 3000 met`, a relative one `ratio ≥ 0.9 met`.
  var cells: [String] {
    func verdict(_ met: Bool?) -> String { Self.judgesTargets ? (met == true ? "met" : "MISSED") : "(release only)" }
    let targets = [
      target.map { "\(better == .lower ? "≤" : "≥") \(format($0)) \(verdict(meetsTarget))" },
      minRatio.map { "ratio ≥ \(format($0)) \(verdict(meetsMinRatio))" },
    ]
    return [
      name, unit, format(keel), format(peer), format(ratio), better.rawValue,
      targets.compactMap { $0 }.joined(separator: "; "),
    ]
  }

  /// Table column titles, matching ``cells``.
  static let headers = ["name", "unit", "keel", "peer", "ratio", "better", "target"]
}

/// Three decimals, no exponent: readable in the table and valid JSON.
func format(_ value: Double) -> String {
  let rounded = (value * 1_000).rounded() / 1_000
  return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
}

/// Renders rows as a plain-text table with aligned columns.
func table(_ rows: [ResultRow]) -> String {
  let lines = [ResultRow.headers] + rows.map(\.cells)
  let widths = ResultRow.headers.indices.map { column in lines.map { $0[column].count }.max() ?? 0 }
  return lines.map { cells in
    zip(cells, widths).map { cell, width in cell + String(repeating: " ", count: width - cell.count) }
      .joined(separator: "  ")
  }.joined(separator: "\n")
}
