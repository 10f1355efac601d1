/// The plainest least-recently-used cache: a list, most recently used first, searched from end to end. The
/// reference that ``MemoryCache`` must agree with, operation by operation.
struct MemoryCacheModel {
  /// The entries, most recently used first.
  private(set) var entries: [(key: Int, value: Int, cost: Int)] = []
  var totalCostLimit: Int {
    didSet { trim() }
  }
  var countLimit: Int {
    didSet { trim() }
  }
  let maxEntryCostFraction: Double
  /// The largest cost stored: the fraction of the cost limit, rounded down.
  var maxEntryCost: Int { Int((Double(totalCostLimit) * maxEntryCostFraction).rounded(.down)) }

  init(totalCostLimit: Int, countLimit: Int, maxEntryCostFraction: Double) {
    self.totalCostLimit = totalCostLimit
    self.countLimit = countLimit
    self.maxEntryCostFraction = maxEntryCostFraction
  }

  var totalCost: Int { entries.map(\.cost).reduce(0, +) }

  mutating func get(_ key: Int) -> Int? {
    guard let position = entries.firstIndex(where: { $0.key == key }) else { return nil }
    let entry = entries.remove(at: position)
    entries.insert(entry, at: 0)
    return entry.value
  }

  mutating func set(_ value: Int, _ key: Int, cost: Int) -> Bool {
    _ = remove(key)
    guard cost <= maxEntryCost else { return false }
    entries.insert((key, value, cost), at: 0)
    trim()
    return true
  }

  mutating func remove(_ key: Int) -> Int? {
    guard let position = entries.firstIndex(where: { $0.key == key }) else { return nil }
    return entries.remove(at: position).value
  }

  private mutating func trim() {
    while entries.count > countLimit || totalCost > totalCostLimit { entries.removeLast() }
  }
}
