/// What a ``MemoryCache`` has done since it was created: a snapshot taken under the cache's lock, so its numbers are
/// consistent with one another.
public struct MemoryCacheStatistics: Sendable, Hashable, CustomStringConvertible {
  /// Lookups that found a live entry.
  public var hits: Int
  /// Lookups that found nothing, or an expired entry.
  public var misses: Int
  /// Entries removed to keep within ``MemoryCache/totalCostLimit`` or ``MemoryCache/countLimit``.
  public var evictions: Int
  /// Entries removed because their time-to-live had passed: found expired by a lookup, by
  /// ``MemoryCache/removeExpiredObjects()``, or when they came up for eviction.
  public var expirations: Int
  /// Values refused because their cost was above the cache's largest entry cost.
  public var rejections: Int
  /// The number of entries now in the cache.
  public var count: Int
  /// The sum of the costs of the entries now in the cache.
  public var totalCost: Int

  /// Statistics with the given numbers; a cache makes its own, this is for comparisons in tests.
  public init(
    hits: Int = 0, misses: Int = 0, evictions: Int = 0, expirations: Int = 0, rejections: Int = 0, count: Int = 0,
    totalCost: Int = 0
  ) {
    self.hits = hits
    self.misses = misses
    self.evictions = evictions
    self.expirations = expirations
    self.rejections = rejections
    self.count = count
    self.totalCost = totalCost
  }

  /// Hits as a fraction of all lookups, from 0 to 1; 0 before the first lookup.
  public var hitRatio: Double {
    let lookups = hits + misses
    return lookups == 0 ? 0 : Double(hits) / Double(lookups)
  }

  /// For example `hits 90, misses 10 (90.0%), evictions 3, expirations 1, rejections 0, count 50, cost 1200`.
  public var description: String {
    let percent = (hitRatio * 1_000).rounded() / 10
    return "hits \(hits), misses \(misses) (\(percent)%), evictions \(evictions), expirations \(expirations), "
      + "rejections \(rejections), count \(count), cost \(totalCost)"
  }
}
