import Foundation
import KeelRandom

/// One pre-generated sequence of cache operations, replayed identically by Keel and by the peer.
struct MemoryCacheWorkload: Sendable {
  /// The key of each operation.
  let keys: [Int]
  /// Whether each operation is a store (otherwise a lookup).
  let isStore: [Bool]
  /// The cost of each store, and of each lookup's store on a miss.
  let costs: [Int]
  /// The most the costs of the entries may add up to.
  let totalCostLimit: Int
  /// One payload per key, made in advance so that neither side pays for allocating it.
  let payloads: [MemoryCachePayload]

  /// `operations` lookups and stores, half each, of uniformly random keys among `keyCount`, each store costing
  /// 1 to 100; the cost limit holds about half the keys, so stores evict.
  static func mixed(operations: Int, keyCount: Int, seed: UInt64) -> MemoryCacheWorkload {
    var random = SplitMix64(seed: seed)
    var (keys, isStore, costs) = ([Int](), [Bool](), [Int]())
    for _ in 0..<operations {
      keys.append(Int(random.next() % UInt64(keyCount)))
      isStore.append(random.next() & 1 == 0)
      costs.append(1 + Int(random.next() % 100))
    }
    return MemoryCacheWorkload(
      keys: keys, isStore: isStore, costs: costs, totalCostLimit: keyCount * 50 / 2,
      payloads: (0..<keyCount).map(MemoryCachePayload.init))
  }

  /// `requests` lookups of keys drawn from a Zipf distribution with exponent `exponent` over `keyCount` keys (key 0
  /// the most popular), each key with its own fixed cost of 1 to 100, and a cost limit of a tenth of all the keys'
  /// costs: the way an image cache is used. A miss is followed by a store.
  static func zipf(requests: Int, keyCount: Int, exponent: Double, seed: UInt64) -> MemoryCacheWorkload {
    var random = SplitMix64(seed: seed)
    var cumulative: [Double] = []
    var sum = 0.0
    for rank in 1...keyCount {
      sum += 1 / pow(Double(rank), exponent)
      cumulative.append(sum)
    }
    let keyCosts = (0..<keyCount).map { _ in 1 + Int(random.next() % 100) }
    let keys = (0..<requests).map { _ in
      let target = random.nextUnit() * sum
      return min(keyCount - 1, cumulative.partitioningIndex { $0 > target })
    }
    return MemoryCacheWorkload(
      keys: keys, isStore: Array(repeating: false, count: requests), costs: keys.map { keyCosts[$0] },
      totalCostLimit: keyCosts.reduce(0, +) / 10, payloads: (0..<keyCount).map(MemoryCachePayload.init))
  }
}

extension Array where Element == Double {
  /// The first index whose element satisfies `predicate`, for a predicate false then true along the array.
  fileprivate func partitioningIndex(where predicate: (Double) -> Bool) -> Int {
    var (low, high) = (0, count)
    while low < high {
      let middle = (low + high) / 2
      if predicate(self[middle]) { high = middle } else { low = middle + 1 }
    }
    return low
  }
}
