/// The state of a ``MemoryCache``, kept under its one lock: a dictionary from key to entry, and a doubly linked list
/// of the entries' slots in recency order, threaded through one small contiguous array.
///
/// A hit reads what it returns (the value, and the expiry it checks) from the dictionary, in the same probe that found
/// the key, and moves the entry to the front of the list with a few stores into ``links``: two 32-bit slot numbers an
/// entry, so that the list of a cache of tens of thousands of entries stays within the processor's second-level cache,
/// where a hit's neighbours in the list are random slots. What only a store and an eviction need (an entry's key, to
/// take it out of the dictionary, and its cost) is kept apart, in ``slots``. Nothing is allocated and nothing is
/// reference counted per entry once the arrays have grown to the cache's size; freed slots form a free list (through
/// ``Link/next``) and are reused before the arrays grow. Every operation hashes its key once, and an eviction hashes
/// the evicted key once more to drop it from the dictionary.
@usableFromInline
struct MemoryCacheStorage<Key: Hashable, Value> {
  /// What the dictionary holds for a key: all that a hit reads.
  @usableFromInline
  struct Entry {
    @usableFromInline var value: Value
    /// The instant on the cache's timeline at which the entry expires; ``CacheTimeline/never`` if it does not.
    @usableFromInline var expiry: Int64
    /// The entry's slot in ``links`` and ``slots``.
    @usableFromInline var slot: Int32

    @inlinable
    init(value: Value, expiry: Int64, slot: Int32) {
      (self.value, self.expiry, self.slot) = (value, expiry, slot)
    }
  }

  /// A slot's neighbours in the recency list.
  @usableFromInline
  struct Link {
    /// The neighbour used more recently, or `none`.
    @usableFromInline var previous: Int32
    /// The neighbour used less recently, or `none`; in a free slot, the next free slot.
    @usableFromInline var next: Int32

    @inlinable
    init(previous: Int32, next: Int32) {
      (self.previous, self.next) = (previous, next)
    }
  }

  /// What an eviction needs of a slot: the key, to take the entry out of the dictionary (`nil` in a free slot, so
  /// that a removed key is released at once), and the cost.
  @usableFromInline
  struct Slot {
    @usableFromInline var key: Key?
    @usableFromInline var cost: Int

    @inlinable
    init(key: Key?, cost: Int) {
      (self.key, self.cost) = (key, cost)
    }
  }

  /// No slot.
  @inlinable static var none: Int32 { -1 }

  @usableFromInline var index: [Key: Entry] = [:]
  @usableFromInline var links: [Link] = []
  @usableFromInline var slots: [Slot] = []
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
    guard let entry = index[key] else {
      misses += 1
      return nil
    }
    if entry.expiry != CacheTimeline.never, timeline.now() >= entry.expiry {
      index[key] = nil
      release(entry.slot)
      expirations += 1
      misses += 1
      return nil
    }
    if entry.slot != head {
      unlink(entry.slot)
      linkAtFront(entry.slot)
    }
    hits += 1
    return entry.value
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
      if let old = index.removeValue(forKey: key) { release(old.slot) }
      rejections += 1
      return false
    }
    let slot = allocate(Slot(key: key, cost: cost))
    linkAtFront(slot)
    totalCost += cost
    // One hash for both an insert and a replacement: the new entry goes in first, the old one (if any) comes out.
    if let old = index.updateValue(Entry(value: value, expiry: expiry, slot: slot), forKey: key) {
      release(old.slot)
    }
    trim(on: timeline)
    return true
  }

  /// Removes the entry for `key`.
  ///
  /// - Returns: Its value, or `nil` if there was none.
  @inlinable
  mutating func removeValue(forKey key: Key) -> Value? {
    guard let entry = index.removeValue(forKey: key) else { return nil }
    release(entry.slot)
    return entry.value
  }

  /// Removes every entry and gives back the memory they used. Statistics are kept.
  mutating func removeAll() {
    index = [:]
    links = []
    slots = []
    (head, tail, firstFree, totalCost) = (Self.none, Self.none, Self.none, 0)
  }

  /// Removes the entries that have expired, counting them as expirations.
  ///
  /// - Returns: How many were removed.
  mutating func removeExpired(on timeline: CacheTimeline) -> Int {
    let now = timeline.now()
    let expired = index.filter { now >= $0.value.expiry }
    for (key, entry) in expired {
      index[key] = nil
      release(entry.slot)
    }
    expirations += expired.count
    return expired.count
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
      let entry = index.removeValue(forKey: slots[Int(slot)].key.unsafelyUnwrapped).unsafelyUnwrapped
      var expired = false
      if entry.expiry != CacheTimeline.never {
        // The clock is read once, and only if an entry with a time-to-live comes up for eviction.
        if now == nil { now = timeline.now() }
        expired = entry.expiry <= now.unsafelyUnwrapped
      }
      if expired { expirations += 1 } else { evictions += 1 }
      release(slot)
    }
  }

  // MARK: - The list

  /// Puts `slot` in a free slot, or a new one, and returns its number; it is not linked yet.
  ///
  /// - Precondition: Fewer than `Int32.max` entries.
  @inlinable
  mutating func allocate(_ slot: Slot) -> Int32 {
    guard firstFree != Self.none else {
      precondition(slots.count < Int32.max, "a MemoryCache holds fewer than \(Int32.max) entries")
      slots.append(slot)
      links.append(Link(previous: Self.none, next: Self.none))
      return Int32(truncatingIfNeeded: slots.count - 1)
    }
    let number = firstFree
    firstFree = links[Int(number)].next
    slots[Int(number)] = slot
    return number
  }

  /// Unlinks the entry in `slot`, subtracts its cost and frees the slot. The caller has removed it from the index.
  @inlinable
  mutating func release(_ slot: Int32) {
    unlink(slot)
    totalCost -= slots[Int(slot)].cost
    slots[Int(slot)] = Slot(key: nil, cost: 0)
    links[Int(slot)].next = firstFree
    firstFree = slot
  }

  @inlinable
  mutating func unlink(_ slot: Int32) {
    let link = links[Int(slot)]
    if link.previous == Self.none { head = link.next } else { links[Int(link.previous)].next = link.next }
    if link.next == Self.none { tail = link.previous } else { links[Int(link.next)].previous = link.previous }
  }

  @inlinable
  mutating func linkAtFront(_ slot: Int32) {
    links[Int(slot)] = Link(previous: Self.none, next: head)
    if head == Self.none { tail = slot } else { links[Int(head)].previous = slot }
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
