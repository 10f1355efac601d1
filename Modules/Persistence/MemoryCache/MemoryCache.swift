import KeelConcurrency

/// A thread-safe in-memory cache with `NSCache`'s shape and true least-recently-used eviction, in O(1) per operation.
///
/// ```swift
/// import Foundation
///
/// struct Image: Sendable { var pixels: Data; var byteCount: Int { pixels.count } }
/// let url = URL(string: "https://example.com/avatar.png")!
/// let image = Image(pixels: Data(count: 64 * 64 * 4))
///
/// let thumbnails = MemoryCache<URL, Image>(totalCostLimit: 50_000_000, countLimit: 500, defaultTTL: .seconds(600))
/// thumbnails.setObject(image, forKey: url, cost: image.byteCount)
/// if let cached = thumbnails.object(forKey: url) { print(cached.byteCount) }
/// thumbnails[URL(string: "app:placeholder")!] = Image(pixels: Data())  // cost 0, default time-to-live
/// ```
///
/// - **Eviction**: when a store takes the cache over ``totalCostLimit`` or ``countLimit``, the least recently used
///   entries go first, whatever their cost. A lookup that finds an entry and a store both make the entry the most
///   recently used. Lowering a limit evicts at once. A limit of 0 means no limit, as in `NSCache`.
/// - **Oversized entries**: with a cost limit, an entry costing more than `maxEntryCostFraction` of it (a quarter by
///   default) is not stored, so that one large value cannot flush the cache; storing it removes any older entry for
///   the same key, so a lookup never returns a stale value.
/// - **Time-to-live**: an entry stored with a time-to-live (its own, or the cache's `defaultTTL`) expires that long
///   after it was stored, on the injected clock. An expired entry is a miss, and is removed when a lookup finds it,
///   when it comes up for eviction, or by ``removeExpiredObjects()``; no timer runs in the background.
/// - **Cost**: `setObject`, `object(forKey:)`, `removeObject(forKey:)` and the subscript are O(1): one lock, one hash
///   of the key, and a few stores into one small contiguous array (a dictionary from key to value, expiry and slot,
///   and a doubly linked list of the slots in recency order, 8 bytes an entry). Each entry evicted costs one more
///   hash. Nothing is allocated per entry once the arrays have grown to the cache's size.
/// - **Threads**: every operation takes one internal lock once, so the cache can be shared freely. Evicted and
///   replaced values are released with that lock held: a value's `deinit` must not call back into the same cache.
///
/// Foundation's `NSCache` on Linux keeps its entries in a list sorted by cost: its stores are O(n), lookups do not
/// count as use, and among entries of equal cost the newest is evicted first. `keel-bench --filter memoryCache`
/// compares the two.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  /// The state under its lock: `@usableFromInline`, so that the inlinable operations below, which clients specialize
  /// for their own `Key` and `Value`, take the lock themselves.
  @usableFromInline let storage: Locked<MemoryCacheStorage<Key, Value>>
  @usableFromInline let timeline: CacheTimeline

  /// The time-to-live of an entry stored without one of its own; `nil` if such entries do not expire.
  public let defaultTTL: Duration?
  /// The largest entry, as a fraction of ``totalCostLimit``: a value costing more is not stored.
  public let maxEntryCostFraction: Double

  /// An empty cache.
  ///
  /// - Parameters:
  ///   - totalCostLimit: The most the costs of the entries may add up to; 0 for no limit.
  ///   - countLimit: The most entries the cache holds; 0 for no limit.
  ///   - defaultTTL: How long an entry stored without a time-to-live of its own lives; `nil` for as long as the
  ///     limits allow.
  ///   - maxEntryCostFraction: With a cost limit, an entry costing more than this fraction of it is not stored.
  ///   - clock: The clock that times entries' lives.
  /// - Precondition: The limits are not negative and `maxEntryCostFraction` is in `0...1`.
  public init(
    totalCostLimit: Int = 0, countLimit: Int = 0, defaultTTL: Duration? = nil, maxEntryCostFraction: Double = 0.25,
    clock: any Clock<Duration> = ContinuousClock()
  ) {
    precondition(totalCostLimit >= 0, "totalCostLimit must not be negative, got \(totalCostLimit)")
    precondition(countLimit >= 0, "countLimit must not be negative, got \(countLimit)")
    precondition((0...1).contains(maxEntryCostFraction), "maxEntryCostFraction must be in 0...1")
    storage = Locked(
      MemoryCacheStorage(
        totalCostLimit: totalCostLimit, countLimit: countLimit, maxEntryCostFraction: maxEntryCostFraction))
    timeline = CacheTimeline(clock)
    self.defaultTTL = defaultTTL
    self.maxEntryCostFraction = maxEntryCostFraction
  }

  /// The most the costs of the entries may add up to; 0 for no limit. Lowering it evicts least recently used
  /// entries at once.
  ///
  /// - Precondition: Not negative.
  public var totalCostLimit: Int {
    get { storage.withLock { $0.totalCostLimit } }
    set {
      precondition(newValue >= 0, "totalCostLimit must not be negative, got \(newValue)")
      storage.withLock {
        $0.setTotalCostLimit(newValue)
        $0.trim(on: timeline)
      }
    }
  }

  /// The most entries the cache holds; 0 for no limit. Lowering it evicts least recently used entries at once.
  ///
  /// - Precondition: Not negative.
  public var countLimit: Int {
    get { storage.withLock { $0.countLimit } }
    set {
      precondition(newValue >= 0, "countLimit must not be negative, got \(newValue)")
      storage.withLock {
        $0.countLimit = newValue
        $0.trim(on: timeline)
      }
    }
  }

  /// The number of entries, expired ones not yet removed included.
  public var count: Int { storage.withLock { $0.count } }

  /// The sum of the costs of the entries.
  public var totalCost: Int { storage.withLock { $0.totalCost } }

  /// Hits, misses, evictions and the current size.
  public var statistics: MemoryCacheStatistics { storage.withLock { $0.statistics } }

  /// The value stored for `key`, made the most recently used entry; `nil` if there is none or it has expired.
  @inlinable
  public func object(forKey key: Key) -> Value? {
    storage.withLock { $0.value(forKey: key, on: timeline) }
  }

  /// Stores `value` for `key` as the most recently used entry, replacing any older one, then evicts least recently
  /// used entries until the limits hold.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - key: The key.
  ///   - cost: What the entry counts against ``totalCostLimit``, such as its size in bytes.
  ///   - ttl: How long the entry lives; `nil` for ``defaultTTL``.
  /// - Returns: `false` if the value was not stored because its cost is above `maxEntryCostFraction` of
  ///   ``totalCostLimit`` (any older entry for `key` is then removed).
  /// - Precondition: `cost` is not negative.
  @inlinable @discardableResult
  public func setObject(_ value: Value, forKey key: Key, cost: Int = 0, ttl: Duration? = nil) -> Bool {
    precondition(cost >= 0, "cost must not be negative, got \(cost)")
    let expiry = (ttl ?? defaultTTL).map(timeline.expiry(after:)) ?? CacheTimeline.never
    return storage.withLock {
      $0.setValue(value, forKey: key, cost: cost, expiry: expiry, on: timeline)
    }
  }

  /// Removes the entry for `key`.
  ///
  /// - Returns: The removed value, or `nil` if there was none (an expired entry's value is returned too).
  @inlinable @discardableResult
  public func removeObject(forKey key: Key) -> Value? {
    storage.withLock { $0.removeValue(forKey: key) }
  }

  /// Removes every entry. The statistics are kept.
  public func removeAllObjects() {
    storage.withLock { $0.removeAll() }
  }

  /// Removes the entries whose time-to-live has passed: O(n), for a caller that wants their memory back before
  /// lookups or evictions would find them.
  ///
  /// - Returns: How many entries were removed.
  @discardableResult
  public func removeExpiredObjects() -> Int {
    storage.withLock { $0.removeExpired(on: timeline) }
  }

  /// The value for `key`, as ``object(forKey:)``; assigning stores it at cost 0 with ``defaultTTL``, and assigning
  /// `nil` removes the entry.
  @inlinable
  public subscript(key: Key) -> Value? {
    get { object(forKey: key) }
    set {
      if let newValue { setObject(newValue, forKey: key) } else { removeObject(forKey: key) }
    }
  }
}
