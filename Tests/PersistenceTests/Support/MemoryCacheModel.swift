/// The plainest least-recently-used cache: a list, most recently used first, searched from end to end. The
/// reference that ``MemoryCache`` must agree with, operation by operation.
struct MemoryCacheModel {
  /// The entries, most recently used first.
  private(set) var entries: [(key: Int, value: Int, cost: Int)] = []
  let totalCostLimit: Int
  var countLimit: Int {
    didSet { trim() }
  }
  let maxEntryCost: Int

  init(totalCostLimit: Int, countLimit: Int, maxEntryCost: Int) {
    self.totalCostLimit = totalCostLimit
    self.countLimit = countLimit
    self.maxEntryCost = maxEntryCost
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
