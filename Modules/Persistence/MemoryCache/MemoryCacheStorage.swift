/// The state of a ``MemoryCache``, kept under its one lock: a dictionary from key to slot, and the entries in one
/// contiguous array threaded by an intrusive doubly linked list in recency order.
///
/// Slots are `Int` indices into `nodes`, so linking, unlinking and moving an entry to the front are a few stores into
/// the array: no allocation and no reference counting per entry. Freed slots form a free list (through `next`) and
/// are reused before the array grows. Every operation hashes its key once, and an eviction hashes the evicted key
/// once more to drop it from the index.
@usableFromInline
struct MemoryCacheStorage<Key: Hashable, Value> {
  /// One cache entry, or a free slot when `entry` is `nil`.
  @usableFromInline
  struct Node {
    /// The key and value; `nil` in a free slot, so that a removed value is released at once.
    @usableFromInline var entry: (key: Key, value: Value)?
    @usableFromInline var cost: Int
    /// The instant on the cache's timeline at which the entry expires; ``CacheTimeline/never`` if it does not.
    @usableFromInline var expiry: Int64
    /// The neighbour used more recently, or `none`.
    @usableFromInline var previous: Int
    /// The neighbour used less recently, or `none`; in a free slot, the next free slot.
    @usableFromInline var next: Int

    /// An unlinked entry.
    @inlinable
    init(key: Key, value: Value, cost: Int, expiry: Int64) {
      (entry, self.cost, self.expiry, previous, next) = (
        (key, value), cost, expiry, MemoryCacheStorage.none, MemoryCacheStorage.none
      )
    }
  }

  /// No slot.
  @inlinable static var none: Int { -1 }

  @usableFromInline var nodes: [Node] = []
  @usableFromInline var index: [Key: Int] = [:]
  /// The most recently used entry.
  @usableFromInline var head = none
  /// The least recently used entry: the next to be evicted.
  @usableFromInline var tail = none
  @usableFromInline var firstFree = none

  /// The sum of the costs of the entries.
  @usableFromInline var totalCost = 0
  /// 0 means no limit.
  @usableFromInline var totalCostLimit: Int
  /// 0 means no limit.
  @usableFromInline var countLimit: Int
  /// An entry that costs more than this is refused: the fraction of ``totalCostLimit``, rounded down.
  @usableFromInline var maxEntryCost = Int.max
  @usableFromInline let maxEntryCostFraction: Double

  @usableFromInline var hits = 0
  @usableFromInline var misses = 0
  @usableFromInline var evictions = 0
  @usableFromInline var expirations = 0
  @usableFromInline var rejections = 0

  init(totalCostLimit: Int, countLimit: Int, maxEntryCostFraction: Double) {
    self.totalCostLimit = 0
    self.countLimit = countLimit
    self.maxEntryCostFraction = maxEntryCostFraction
    setTotalCostLimit(totalCostLimit)
  }

  /// The number of entries.
  @inlinable var count: Int { index.count }

  /// Sets the cost limit and the largest entry cost that follows from it; does not evict (see ``trim(on:)``).
  mutating func setTotalCostLimit(_ limit: Int) {
    totalCostLimit = limit
    maxEntryCost = limit == 0 ? Int.max : Int((Double(limit) * maxEntryCostFraction).rounded(.down))
  }

  // MARK: - Operations

  /// The value for `key`, made the most recently used; `nil` (a miss) if absent or expired, an expired entry being
  /// removed.
  @inlinable
  mutating func value(forKey key: Key, on timeline: CacheTimeline) -> Value? {
    guard let slot = index[key] else {
      misses += 1
      return nil
    }
    if nodes[slot].expiry != CacheTimeline.never, timeline.now() >= nodes[slot].expiry {
      index[key] = nil
      release(slot)
      expirations += 1
      misses += 1
      return nil
    }
    if slot != head {
      unlink(slot)
      linkAtFront(slot)
    }
    hits += 1
    return nodes[slot].entry.unsafelyUnwrapped.value
  }

  /// Stores `value` as the most recently used entry, replacing any entry for `key`, then evicts the least recently
  /// used entries until the limits hold. An entry costing more than ``maxEntryCost`` is refused and removes any
  /// entry for `key`.
  ///
  /// - Returns: Whether the value was stored.
  @inlinable
  mutating func setValue(
    _ value: Value, forKey key: Key, cost: Int, expiry: Int64, on timeline: CacheTimeline
  ) -> Bool {
    guard cost <= maxEntryCost else {
      if let old = index.removeValue(forKey: key) { release(old) }
      rejections += 1
      return false
    }
    let slot = allocate(Node(key: key, value: value, cost: cost, expiry: expiry))
    linkAtFront(slot)
    totalCost += cost
    // One hash for both an insert and a replacement: the new node goes in first, the old one (if any) comes out.
    if let old = index.updateValue(slot, forKey: key) { release(old) }
    trim(on: timeline)
    return true
  }

  /// Removes the entry for `key`.
  ///
  /// - Returns: Its value, or `nil` if there was none.
  @inlinable
  mutating func removeValue(forKey key: Key) -> Value? {
    guard let slot = index.removeValue(forKey: key) else { return nil }
    let value = nodes[slot].entry?.value
    release(slot)
    return value
  }

  /// Removes every entry and gives back the memory they used. Statistics are kept.
  mutating func removeAll() {
    nodes = []
    index = [:]
    (head, tail, firstFree, totalCost) = (Self.none, Self.none, Self.none, 0)
  }

  /// Removes the entries that have expired, counting them as expirations.
  ///
  /// - Returns: How many were removed.
  mutating func removeExpired(on timeline: CacheTimeline) -> Int {
    let now = timeline.now()
    var removed = 0
    var slot = head
    while slot != Self.none {
      let next = nodes[slot].next
      if now >= nodes[slot].expiry, let key = nodes[slot].entry?.key {
        index[key] = nil
        release(slot)
        removed += 1
      }
      slot = next
    }
    expirations += removed
    return removed
  }

  /// Evicts least recently used entries until both limits hold. An evicted entry that had already expired counts as
  /// an expiration, any other as an eviction.
  @inlinable
  mutating func trim(on timeline: CacheTimeline) {
    var now: Int64?
    while tail != Self.none,
      (countLimit > 0 && index.count > countLimit) || (totalCostLimit > 0 && totalCost > totalCostLimit)
    {
      let slot = tail
      var expired = false
      if nodes[slot].expiry != CacheTimeline.never {
        // The clock is read once, and only if an entry with a time-to-live comes up for eviction.
        if now == nil { now = timeline.now() }
        expired = nodes[slot].expiry <= now.unsafelyUnwrapped
      }
      if expired { expirations += 1 } else { evictions += 1 }
      index[nodes[slot].entry.unsafelyUnwrapped.key] = nil
      release(slot)
    }
  }

  // MARK: - The list

  /// Puts `node` in a free slot, or a new one, and returns the slot; the node is not linked yet.
  @inlinable
  mutating func allocate(_ node: Node) -> Int {
    guard firstFree != Self.none else {
      nodes.append(node)
      return nodes.count - 1
    }
    let slot = firstFree
    firstFree = nodes[slot].next
    nodes[slot] = node
    return slot
  }

  /// Unlinks the entry in `slot`, subtracts its cost and frees the slot. The caller has removed it from the index.
  @inlinable
  mutating func release(_ slot: Int) {
    unlink(slot)
    totalCost -= nodes[slot].cost
    nodes[slot].entry = nil
    nodes[slot].next = firstFree
    firstFree = slot
  }

  @inlinable
  mutating func unlink(_ slot: Int) {
    let (previous, next) = (nodes[slot].previous, nodes[slot].next)
    if previous == Self.none { head = next } else { nodes[previous].next = next }
    if next == Self.none { tail = previous } else { nodes[next].previous = previous }
  }

  @inlinable
  mutating func linkAtFront(_ slot: Int) {
    nodes[slot].previous = Self.none
    nodes[slot].next = head
    if head == Self.none { tail = slot } else { nodes[head].previous = slot }
    head = slot
  }
}

extension MemoryCacheStorage {
  /// A snapshot of the counters and the current size.
  var statistics: MemoryCacheStatistics {
    MemoryCacheStatistics(
      hits: hits, misses: misses, evictions: evictions, expirations: expirations, rejections: rejections,
      count: count, totalCost: totalCost)
  }
}
