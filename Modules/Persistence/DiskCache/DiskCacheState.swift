import Foundation

/// A ``DiskCache``'s in-memory index and counters, guarded by its lock: the records loaded at start-up and kept
/// current by every read and write, and the names whose rows the index file has yet to be told about.
struct DiskCacheState {
  /// Records by file name.
  private(set) var records: [String: DiskCacheRecord]
  /// The sum of the records' sizes.
  private(set) var totalSize: Int
  /// The next access-order number.
  private var nextSequence: UInt64
  /// The next write's version; every record loaded or written before it has a smaller one.
  private(set) var nextVersion: UInt64
  /// Names whose row must be written or deleted at the next index write.
  private(set) var dirty: Set<String> = []
  /// Whether every entry file in the directory has a record: true after a clean shutdown or a
  /// ``DiskCache/reconcile()``.
  /// While it is false, a read of a name without a record looks for its file.
  var indexIsComplete: Bool
  /// Temporary files written so far, for unique names.
  var temporaryFiles: UInt64 = 0
  /// Whether a background index write has been started and has not taken its changes yet.
  var flushScheduled = false
  /// Whether ``DiskCache/close()`` has run.
  var isClosed = false
  /// The counters; ``DiskCacheStatistics/count`` and ``DiskCacheStatistics/totalSize`` are filled in by ``snapshot``.
  var statistics = DiskCacheStatistics()

  init(records: [String: DiskCacheRecord], indexIsComplete: Bool) {
    self.records = records
    self.indexIsComplete = indexIsComplete
    totalSize = records.values.reduce(0) { $0 + $1.size }
    nextSequence = (records.values.map(\.sequence).max() ?? 0) + 1
    nextVersion = UInt64(records.count) + 1
  }

  /// The counters with the current count and size.
  var snapshot: DiskCacheStatistics {
    var statistics = statistics
    statistics.count = records.count
    statistics.totalSize = totalSize
    return statistics
  }

  /// Records a new write (or an adopted file) of `name`, replacing any earlier record; it is the most recent.
  mutating func insert(_ name: String, size: Int, expires: Date?, at now: Date) {
    totalSize += size - (records[name]?.size ?? 0)
    records[name] = DiskCacheRecord(
      size: size, accessed: now, expires: expires, sequence: nextSequence, version: nextVersion)
    nextSequence += 1
    nextVersion += 1
    dirty.insert(name)
  }

  /// Makes `name` the most recently used.
  mutating func touch(_ name: String, at now: Date) {
    guard records[name] != nil else { return }
    records[name]!.accessed = now
    records[name]!.sequence = nextSequence
    nextSequence += 1
    dirty.insert(name)
  }

  /// Drops the record of `name`, if any.
  mutating func forget(_ name: String) {
    guard let record = records.removeValue(forKey: name) else { return }
    totalSize -= record.size
    dirty.insert(name)
  }

  /// The changes the index file has not seen, as rows to write (`nil`: delete), and forgets them.
  mutating func takeChanges() -> [(String, DiskCacheRecord?)] {
    defer { dirty.removeAll(keepingCapacity: true) }
    return dirty.map { ($0, records[$0]) }
  }

  /// Puts back names whose index write failed, to be written next time.
  mutating func restore(_ names: [String]) {
    dirty.formUnion(names)
  }
}
