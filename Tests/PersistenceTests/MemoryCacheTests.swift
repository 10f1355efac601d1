import Clocks
import KeelRandom
import Persistence
import TestSupport
import Testing

/// REQUIREMENTS A8, U1: an O(1) least-recently-used memory cache with cost and count limits, a time-to-live on an
/// injected clock, oversized entries refused, statistics, and safe use from many tasks at once.
@Suite("MemoryCache", .timeLimit(.minutes(3)))
struct MemoryCacheTests {
  /// The keys among `candidates` that `cache` holds. Reading them changes their recency, not which are present.
  static func keys(in cache: MemoryCache<String, Int>, among candidates: [String]) -> [String] {
    candidates.filter { cache.object(forKey: $0) != nil }
  }

  @Test("A lookup refreshes recency: the least recently used entry is evicted, not the least recently stored")
  func leastRecentlyUsedGoesFirst() {
    // GIVEN a cache of three, filled a, b, c
    let cache = MemoryCache<String, Int>(countLimit: 3)
    cache["a"] = 1
    cache["b"] = 2
    cache["c"] = 3

    // WHEN a is read, then d stored
    #expect(cache["a"] == 1)
    cache["d"] = 4

    // THEN b, the least recently used, is gone
    #expect(cache["b"] == nil)
    #expect(cache["a"] == 1)  // order now: a, d, c
    cache["e"] = 5
    #expect(cache["c"] == nil)
    #expect(cache["d"] == 4 && cache["e"] == 5 && cache["a"] == 1)
  }

  @Test("Storing over an existing key replaces the value and makes it the most recently used")
  func replacingRefreshesRecency() {
    let cache = MemoryCache<String, Int>(countLimit: 2)
    cache.setObject(1, forKey: "a")
    cache.setObject(2, forKey: "b")
    cache.setObject(10, forKey: "a")
    cache.setObject(3, forKey: "c")

    #expect(cache.object(forKey: "b") == nil)
    #expect(cache.object(forKey: "a") == 10)
    #expect(cache.count == 2)
  }

  @Test("Equal costs: the oldest entry is evicted, never the one just stored (NSCache on Linux gets this wrong)")
  func equalCostsEvictOldestFirst() {
    let cache = MemoryCache<String, Int>(totalCostLimit: 30, maxEntryCostFraction: 1)
    for (value, key) in ["k0", "k1", "k2", "k3", "k4"].enumerated() {
      cache.setObject(value, forKey: key, cost: 10)
    }

    #expect(cache.totalCost == 30)
    #expect(Self.keys(in: cache, among: ["k0", "k1", "k2", "k3", "k4"]) == ["k2", "k3", "k4"])
  }

  @Test("The cost limit evicts least recently used entries, whatever their cost, until the total fits")
  func costLimit() {
    let cache = MemoryCache<String, Int>(totalCostLimit: 100, maxEntryCostFraction: 1)
    cache.setObject(1, forKey: "cheap", cost: 10)
    cache.setObject(2, forKey: "large", cost: 60)
    cache.setObject(3, forKey: "mid", cost: 30)
    #expect(cache.totalCost == 100)

    // WHEN 50 more must fit, the cheap (oldest) and then the large entry go
    cache.setObject(4, forKey: "new", cost: 50)

    #expect(cache.totalCost == 80)
    #expect(Self.keys(in: cache, among: ["cheap", "large", "mid", "new"]) == ["mid", "new"])
    #expect(cache.statistics.evictions == 2)
  }

  @Test("Replacing an entry replaces its cost")
  func replacingReplacesCost() {
    let cache = MemoryCache<String, Int>(totalCostLimit: 100, maxEntryCostFraction: 1)
    cache.setObject(1, forKey: "a", cost: 40)
    cache.setObject(2, forKey: "a", cost: 70)
    #expect(cache.totalCost == 70)
    cache.setObject(3, forKey: "b", cost: 30)
    #expect(cache.count == 2)
    #expect(cache.statistics.evictions == 0)
  }

  @Test("An entry above the largest entry cost is not stored, and removes any older entry for its key")
  func oversizedEntriesAreRefused() {
    // GIVEN a cost limit of 100 and the default quarter of it per entry
    let cache = MemoryCache<String, Int>(totalCostLimit: 100)
    #expect(cache.setObject(1, forKey: "fits", cost: 25))
    cache.setObject(2, forKey: "replaced", cost: 5)

    // WHEN values above 25 are stored
    #expect(!cache.setObject(3, forKey: "too large", cost: 26))
    #expect(!cache.setObject(4, forKey: "replaced", cost: 80))

    // THEN they are not cached, nothing else was evicted for them, and no stale value remains
    #expect(cache.object(forKey: "too large") == nil)
    #expect(cache.object(forKey: "replaced") == nil)
    #expect(cache.object(forKey: "fits") == 1)
    #expect(cache.totalCost == 25)
    #expect(cache.statistics.rejections == 2)
    #expect(cache.statistics.evictions == 0)

    // Without a cost limit there is no largest entry
    #expect(MemoryCache<String, Int>().setObject(5, forKey: "any", cost: 1_000_000))
  }

  @Test("Lowering either limit evicts least recently used entries at once; 0 means no limit")
  func loweringLimitsEvictsAtOnce() {
    let keys = (0..<10).map { "k\($0)" }
    let cache = MemoryCache<String, Int>()
    for (value, key) in keys.enumerated() { cache.setObject(value, forKey: key, cost: 10) }
    #expect(cache.count == 10)
    _ = cache.object(forKey: "k0")  // now the most recently used

    cache.countLimit = 5
    #expect(cache.count == 5)
    #expect(Set(Self.keys(in: cache, among: keys)) == ["k0", "k6", "k7", "k8", "k9"])

    cache.totalCostLimit = 30
    #expect(cache.count == 3)
    #expect(cache.totalCost == 30)
    #expect(cache.statistics.evictions == 7)

    cache.countLimit = 0
    cache.totalCostLimit = 0
    for (value, key) in keys.enumerated() { cache.setObject(value, forKey: key, cost: 10) }
    #expect(cache.count == 10)
  }

  @Test("A time-to-live expires entries on the injected clock: an expired entry is a miss and is removed")
  func timeToLive() async {
    // GIVEN a default time-to-live of 10 s, and one entry with its own of 1 s
    let clock = TestClock()
    let cache = MemoryCache<String, Int>(defaultTTL: .seconds(10), clock: clock)
    cache["default"] = 1
    cache.setObject(2, forKey: "short", ttl: .seconds(1))

    // WHEN the clock reaches 1 s, the short entry is gone and the other is not
    await clock.advance(by: .milliseconds(999))
    #expect(cache["short"] == 2)
    await clock.advance(by: .milliseconds(1))
    #expect(cache["short"] == nil)
    #expect(cache.count == 1)

    // THEN the default entry lives until exactly 10 s after it was stored
    await clock.advance(by: .milliseconds(8_999))
    #expect(cache["default"] == 1)
    await clock.advance(by: .milliseconds(1))
    #expect(cache["default"] == nil)
    #expect(cache.count == 0)
    #expect(cache.statistics == MemoryCacheStatistics(hits: 2, misses: 2, expirations: 2))
  }

  @Test("Without a time-to-live entries never expire; removeExpiredObjects removes only expired ones")
  func removeExpiredObjects() async {
    let clock = TestClock()
    let cache = MemoryCache<String, Int>(clock: clock)
    cache.setObject(1, forKey: "forever")
    cache.setObject(2, forKey: "minute", ttl: .seconds(60))
    cache.setObject(3, forKey: "hour", ttl: .seconds(3_600))
    cache.setObject(4, forKey: "instant", ttl: .zero)

    await clock.advance(by: .seconds(60))
    #expect(cache.removeExpiredObjects() == 2)

    #expect(cache.count == 2)
    #expect(cache["forever"] == 1 && cache["hour"] == 3)
    #expect(cache.statistics.expirations == 2)
  }

  @Test("An expired entry that comes up for eviction counts as an expiration")
  func expiredEntriesEvictedCountAsExpirations() async {
    let clock = TestClock()
    let cache = MemoryCache<String, Int>(countLimit: 2, clock: clock)
    cache.setObject(1, forKey: "brief", ttl: .seconds(1))
    cache.setObject(2, forKey: "kept")
    await clock.advance(by: .seconds(1))

    cache.setObject(3, forKey: "new")
    cache.setObject(4, forKey: "newer")

    #expect(cache.statistics.expirations == 1)
    #expect(cache.statistics.evictions == 1)
    #expect(cache["new"] == 3 && cache["newer"] == 4)
  }

  @Test("Statistics count hits, misses, evictions, and report the size")
  func statistics() {
    let cache = MemoryCache<String, Int>(countLimit: 2)
    cache.setObject(1, forKey: "a", cost: 3)
    cache.setObject(2, forKey: "b", cost: 4)
    _ = cache.object(forKey: "a")
    _ = cache.object(forKey: "a")
    _ = cache.object(forKey: "missing")
    cache.setObject(3, forKey: "c", cost: 5)  // evicts b

    let statistics = cache.statistics
    #expect(statistics == MemoryCacheStatistics(hits: 2, misses: 1, evictions: 1, count: 2, totalCost: 8))
    #expect(abs(statistics.hitRatio - 2.0 / 3.0) < 1e-12)
    #expect(statistics.description.hasPrefix("hits 2, misses 1 (66.7%), evictions 1"))
  }

  @Test("removeObject returns the removed value; removeAllObjects empties the cache and keeps the statistics")
  func removal() {
    let cache = MemoryCache<String, Int>()
    cache.setObject(1, forKey: "a", cost: 7)
    cache["b"] = 2
    #expect(cache.removeObject(forKey: "a") == 1)
    #expect(cache.removeObject(forKey: "a") == nil)
    #expect(cache.totalCost == 0)
    cache["b"] = nil
    #expect(cache.count == 0)

    cache.setObject(3, forKey: "c", cost: 5)
    _ = cache["c"]
    cache.removeAllObjects()
    #expect(cache.count == 0 && cache.totalCost == 0)
    #expect(cache["c"] == nil)
    #expect(cache.statistics.hits == 1)
    cache["d"] = 4
    #expect(cache["d"] == 4)
  }

  @Test("10,000 random operations agree with a plain list model of least-recently-used eviction")
  func agreesWithModel() {
    var random = SplitMix64(seed: 5)
    let cache = MemoryCache<Int, Int>(totalCostLimit: 200, countLimit: 12, maxEntryCostFraction: 0.5)
    var model = MemoryCacheModel(totalCostLimit: 200, countLimit: 12, maxEntryCostFraction: 0.5)
    for step in 0..<10_000 {
      let key = Int(random.next() % 24)
      let operation: String
      let agrees: Bool
      switch random.next() % 10 {
      case 0..<4:
        operation = "get \(key)"
        agrees = cache.object(forKey: key) == model.get(key)
      case 4..<8:
        let cost = Int(random.next() % 110)
        operation = "set \(key) cost \(cost)"
        agrees = cache.setObject(step, forKey: key, cost: cost) == model.set(step, key, cost: cost)
      case 8:
        operation = "remove \(key)"
        agrees = cache.removeObject(forKey: key) == model.remove(key)
      case 9 where step % 2 == 0:
        let limit = 6 + Int(random.next() % 10)
        operation = "countLimit = \(limit)"
        (cache.countLimit, model.countLimit) = (limit, limit)
        agrees = true
      default:
        let limit = 100 + Int(random.next() % 200)
        operation = "totalCostLimit = \(limit)"
        (cache.totalCostLimit, model.totalCostLimit) = (limit, limit)
        agrees = true
      }
      // One report at the first disagreement: after it, every step would disagree.
      guard agrees, cache.count == model.entries.count, cache.totalCost == model.totalCost else {
        Issue.record("step \(step), \(operation): the cache and the model disagree")
        return
      }
    }
  }

  @Test("Many tasks at once: the limits hold and every entry, its value and its cost stay consistent (run with TSan)")
  func concurrentStress() async {
    let cache = MemoryCache<Int, Int>(totalCostLimit: 2_000, countLimit: 64)
    let tasks = 8
    let operations = 5_000
    let (gets, wrongValues) = await withTaskGroup(of: (gets: Int, wrongValues: Int).self) { group in
      for task in 0..<tasks {
        group.addTask {
          var random = SplitMix64(seed: UInt64(task))
          var (gets, wrongValues) = (0, 0)
          for step in 0..<operations {
            let key = Int(random.next() % 128)
            switch random.next() % 8 {
            case 0..<4:
              gets += 1
              if let value = cache.object(forKey: key), value / 1_000 != key { wrongValues += 1 }
            case 4..<7: cache.setObject(key * 1_000 + step % 100, forKey: key, cost: step % 100)
            default: cache.removeObject(forKey: key)
            }
            if step % 1_000 == 0 { cache.countLimit = 32 + step % 64 }
          }
          return (gets, wrongValues)
        }
      }
      return await group.reduce((0, 0)) { ($0.0 + $1.gets, $0.1 + $1.wrongValues) }
    }

    let statistics = cache.statistics
    #expect(wrongValues == 0)
    #expect(statistics.hits + statistics.misses == gets)
    #expect(statistics.count <= cache.countLimit && statistics.totalCost <= 2_000)
    // Each value encodes its key and its cost: removing every key accounts for exactly the reported count and cost.
    let remaining = (0..<128).compactMap { cache.removeObject(forKey: $0) }
    #expect(remaining.count == statistics.count)
    #expect(remaining.map { $0 % 1_000 }.reduce(0, +) == statistics.totalCost)
    #expect(cache.totalCost == 0 && cache.count == 0)
  }
}
