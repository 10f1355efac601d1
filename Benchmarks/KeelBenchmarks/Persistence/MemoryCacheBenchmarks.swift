import Foundation
import Persistence
import Synchronization

/// The MemoryCache rows: `MemoryCache` against Foundation's `NSCache` on the same pre-generated operations, the same
/// costs and the same limits (REQUIREMENTS A8, U1).
enum MemoryCacheBenchmarks {
  static let keyCount = 20_000
  /// 200,000 lookups and stores of uniformly random keys, with random costs under a limit that holds half the keys.
  static let mixed = MemoryCacheWorkload.mixed(operations: 200_000, keyCount: keyCount, seed: 8)
  /// 200,000 Zipf(1) lookups, each miss followed by a store, under a cost limit of a tenth of all the keys' costs.
  static let zipf = MemoryCacheWorkload.zipf(requests: 200_000, keyCount: keyCount, exponent: 1, seed: 9)
  /// Lookups per timed sample in the get-hit row: long enough that reading the clock is noise.
  static let batch = 1_000

  /// All rows, in report order.
  static func comparisons(quick: Bool) -> [Comparison] {
    let samples = quick ? 200 : 2_000
    return [
      Comparison(
        name: "persistence.memoryCache.mixed", unit: "ms", better: .lower, target: nil, minRatio: 10,
        rounds: (3, 7), keel: { try keelMixed(mixed) }, peer: { try peerMixed(mixed) }),
      // The workload is seeded, so every round gives the same ratio: one is enough.
      Comparison(
        name: "persistence.memoryCache.zipfHitRatio", unit: "%", better: .higher, target: nil, rounds: (1, 1),
        warmUps: 0, keel: { try keelHitRatio(zipf) }, peer: { try peerHitRatio(zipf) }),
      Comparison(
        name: "persistence.memoryCache.getHit", unit: "ns/op", better: .lower, target: 100,
        keel: { try keelGetHit(samples: samples) }, peer: { try peerGetHit(samples: samples) }),
      // The same lookups against what no cache can beat: a dictionary behind a mutex, with no recency, expiry or
      // statistics to keep. The ratio is what the LRU bookkeeping costs on this machine.
      Comparison(
        name: "persistence.memoryCache.getHit.floor", unit: "ns/op", better: .lower, target: nil,
        keel: { try keelGetHit(samples: samples) }, peer: { try floorGetHit(samples: samples) }),
    ]
  }

  // MARK: - Mixed lookups and stores

  private static func keelMixed(_ workload: MemoryCacheWorkload) throws -> Double {
    let cache = MemoryCache<Int, MemoryCachePayload>(totalCostLimit: workload.totalCostLimit)
    var hits = 0
    let elapsed = ContinuousClock().measure {
      for operation in workload.keys.indices {
        let key = workload.keys[operation]
        if workload.isStore[operation] {
          cache.setObject(workload.payloads[key], forKey: key, cost: workload.costs[operation])
        } else if cache.object(forKey: key) != nil {
          hits += 1
        }
      }
    }
    guard hits > 0, cache.statistics.evictions > 0 else {
      throw BenchmarkError(description: "mixed: \(hits) hits, \(cache.statistics.evictions) evictions")
    }
    return nanoseconds(elapsed) / 1e6
  }

  private static func peerMixed(_ workload: MemoryCacheWorkload) throws -> Double {
    let cache = NSCache<NSNumber, MemoryCachePayload>()
    cache.totalCostLimit = workload.totalCostLimit
    let keys = (0..<keyCount).map { NSNumber(value: $0) }
    var hits = 0
    let elapsed = ContinuousClock().measure {
      for operation in workload.keys.indices {
        let key = workload.keys[operation]
        if workload.isStore[operation] {
          cache.setObject(workload.payloads[key], forKey: keys[key], cost: workload.costs[operation])
        } else if cache.object(forKey: keys[key]) != nil {
          hits += 1
        }
      }
    }
    guard hits > 0 else { throw BenchmarkError(description: "mixed: the peer had no hits") }
    return nanoseconds(elapsed) / 1e6
  }

  // MARK: - Hit ratio

  private static func keelHitRatio(_ workload: MemoryCacheWorkload) throws -> Double {
    let cache = MemoryCache<Int, MemoryCachePayload>(totalCostLimit: workload.totalCostLimit)
    var hits = 0
    for (key, cost) in zip(workload.keys, workload.costs) {
      if cache.object(forKey: key) != nil {
        hits += 1
      } else {
        cache.setObject(workload.payloads[key], forKey: key, cost: cost)
      }
    }
    guard cache.statistics.hits == hits, cache.statistics.rejections == 0 else {
      throw BenchmarkError(description: "hit ratio: \(cache.statistics) after \(hits) hits")
    }
    return 100 * Double(hits) / Double(workload.keys.count)
  }

  private static func peerHitRatio(_ workload: MemoryCacheWorkload) throws -> Double {
    let cache = NSCache<NSNumber, MemoryCachePayload>()
    cache.totalCostLimit = workload.totalCostLimit
    let keys = (0..<keyCount).map { NSNumber(value: $0) }
    var hits = 0
    for (key, cost) in zip(workload.keys, workload.costs) {
      if cache.object(forKey: keys[key]) != nil {
        hits += 1
      } else {
        cache.setObject(workload.payloads[key], forKey: keys[key], cost: cost)
      }
    }
    return 100 * Double(hits) / Double(workload.keys.count)
  }

  // MARK: - Lookup of a present key

  /// The median, over `samples` batches of random lookups in a full cache of every key, of the time per lookup.
  private static func keelGetHit(samples: Int) throws -> Double {
    let cache = MemoryCache<Int, MemoryCachePayload>()
    for key in 0..<keyCount { cache.setObject(mixed.payloads[key], forKey: key) }
    return try medianPerLookup(samples: samples) { keys in
      var hits = 0
      for key in keys where cache.object(forKey: key) != nil { hits += 1 }
      return hits
    }
  }

  private static func peerGetHit(samples: Int) throws -> Double {
    let cache = NSCache<NSNumber, MemoryCachePayload>()
    let keys = (0..<keyCount).map { NSNumber(value: $0) }
    for key in 0..<keyCount { cache.setObject(mixed.payloads[key], forKey: keys[key]) }
    return try medianPerLookup(samples: samples) { batch in
      var hits = 0
      for key in batch where cache.object(forKey: keys[key]) != nil { hits += 1 }
      return hits
    }
  }

  /// A `Mutex<[Int: MemoryCachePayload]>` holding every key: the floor a thread-safe cache's hit can approach.
  private static func floorGetHit(samples: Int) throws -> Double {
    var dictionary: [Int: MemoryCachePayload] = [:]
    for key in 0..<keyCount { dictionary[key] = mixed.payloads[key] }
    let cache = Mutex(dictionary)
    return try medianPerLookup(samples: samples) { keys in
      var hits = 0
      for key in keys where cache.withLock({ $0[key] }) != nil { hits += 1 }
      return hits
    }
  }

  /// Times `lookUp` on successive batches of ``batch`` random keys; `lookUp` returns how many it found, all of them.
  private static func medianPerLookup(samples: Int, _ lookUp: (ArraySlice<Int>) -> Int) throws -> Double {
    let clock = ContinuousClock()
    var perLookup: [Double] = []
    perLookup.reserveCapacity(samples)
    for sample in 0..<samples {
      let start = sample * batch % (mixed.keys.count - batch)
      let keys = mixed.keys[start..<start + batch]
      let begin = clock.now
      let hits = lookUp(keys)
      perLookup.append(nanoseconds(begin.duration(to: clock.now)) / Double(batch))
      guard hits == batch else { throw BenchmarkError(description: "get-hit: only \(hits) of \(batch) found") }
    }
    return median(perLookup)
  }
}
