import Foundation
import KeelConcurrency

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension DiskCache {
  /// Entries removed per hold of the lock during a trim, so that reads and writes go on between batches.
  private static let trimBatch = 64

  // MARK: - Size and expiry

  /// If the entries exceed ``sizeLimit``, removes the least recently used until they fit in
  /// ``trimRatio`` × ``sizeLimit``. Runs by itself after a write that crosses the limit and on the maintenance timer.
  ///
  /// - Returns: How many entries were removed.
  /// - Throws: ``PersistenceError`` when a file cannot be deleted, or the cache is closed.
  @discardableResult
  public func trim() throws -> Int {
    let target = Int(Double(sizeLimit) * trimRatio)
    // Sorted once, outside the lock's hot section; each batch then skips entries read or written since.
    let candidates = try state.withLock { state -> [(name: String, sequence: UInt64, version: UInt64)] in
      try checkOpen(state)
      guard state.totalSize > sizeLimit else { return [] }
      return state.records.map { ($0.key, $0.value.sequence, $0.value.version) }.sorted { $0.sequence < $1.sequence }
    }
    var evicted = 0
    var start = candidates.startIndex
    while start < candidates.endIndex {
      let batch = candidates[start..<min(start + Self.trimBatch, candidates.endIndex)]
      start = batch.endIndex
      let done = try state.withLock { state in
        for candidate in batch where state.totalSize > target {
          guard let record = state.records[candidate.name], record.sequence == candidate.sequence,
            record.version == candidate.version
          else { continue }
          try removeFile(candidate.name)
          state.forget(candidate.name)
          state.statistics.evictions += 1
          evicted += 1
        }
        return state.totalSize <= target
      }
      if done { break }
    }
    scheduleIndexWriteIfNeeded()
    return evicted
  }

  /// Trims after a write crossed the limit. The write has succeeded, so a failure here is counted, not thrown; the
  /// timer tries again.
  func trimAfterWrite() {
    do { try trim() } catch { countMaintenanceFailure() }
  }

  /// Removes every expired entry. Runs by itself on the maintenance timer; an expired entry is a miss either way.
  ///
  /// - Returns: How many entries were removed.
  /// - Throws: ``PersistenceError`` when a file cannot be deleted, or the cache is closed.
  @discardableResult
  public func removeExpired() throws -> Int {
    let now = now()
    let removed = try state.withLock { state in
      try checkOpen(state)
      var removed = 0
      for (name, record) in state.records where record.isExpired(at: now) {
        try removeFile(name)
        state.forget(name)
        state.statistics.expirations += 1
        removed += 1
      }
      return removed
    }
    scheduleIndexWriteIfNeeded()
    return removed
  }

  /// Removes every entry, including any the index had lost, and leftover temporary files.
  ///
  /// - Throws: ``PersistenceError`` when the directory cannot be listed or a file cannot be deleted, or the cache is
  ///   closed.
  public func removeAll() throws {
    try state.withLock { state in
      try checkOpen(state)
      for name in try listDirectory(&state) where Self.isEntryFileName(name) || isStaleTemporaryFile(name) {
        try removeFile(name)
      }
      for name in Array(state.records.keys) { state.forget(name) }
      state.indexIsComplete = true
    }
    scheduleIndexWriteIfNeeded()
  }

  // MARK: - The index

  /// Lists the directory once and brings the index in line with it: adopts entry files the index lost (written
  /// just before a crash), forgets records whose file is gone, removes damaged files and temporary files left by a
  /// killed writer.
  ///
  /// Runs by itself in the background after an unclean shutdown (and only then: a cleanly closed cache opens
  /// without listing its directory). Until it has run, a read of a key the index does not know looks for its file,
  /// so nothing written before the crash is missed. Call it to wait for that pass.
  ///
  /// - Throws: ``PersistenceError`` when the directory or a file cannot be read, or the cache is closed.
  public func reconcile() throws {
    let listedVersion = try state.withLock { state in
      try checkOpen(state)
      return state.nextVersion
    }
    let names = try state.withLock { try listDirectory(&$0) }
    var present = Set<String>()
    for name in names {
      if Self.isEntryFileName(name) {
        present.insert(name)
        if state.withLock({ $0.records[name] == nil }) { try adopt(name) }
      } else if isStaleTemporaryFile(name) {
        try removeFile(name)
      }
    }
    let overLimit = state.withLock { state in
      // A record written after the listing began may have a file the listing missed; it is kept.
      for (name, record) in state.records where record.version < listedVersion && !present.contains(name) {
        state.forget(name)
      }
      state.indexIsComplete = true
      return state.totalSize > sizeLimit
    }
    if overLimit { try trim() }
    scheduleIndexWriteIfNeeded()
  }

  /// Takes back the entry file `name`, which has no record, reading only its header.
  private func adopt(_ name: String) throws {
    let header = try DiskCacheEntryFile.loadHeader(at: path(of: name))
    let now = now()
    try state.withLock { state in
      guard state.records[name] == nil else { return }
      switch header {
      case .missing: break
      case .corrupted:
        try removeFile(name)
        state.statistics.corruptions += 1
      case .header(let header) where header.expires.map { $0 <= now } ?? false:
        try removeFile(name)
        state.statistics.expirations += 1
      case .header(let header):
        state.insert(name, size: header.fileSize, expires: header.expires, at: now)
        state.statistics.adoptions += 1
      }
    }
  }

  private func listDirectory(_ state: inout DiskCacheState) throws -> [String] {
    state.statistics.directoryScans += 1
    do {
      return try FileManager.default.contentsOfDirectory(atPath: directoryPath)
    } catch {
      throw PersistenceError.wrapping(error, while: "list the disk cache directory", path: directoryPath)
    }
  }

  /// A temporary file not of this instance: left by a writer that was killed before its rename.
  private func isStaleTemporaryFile(_ name: String) -> Bool {
    name.hasPrefix(".tmp-") && !name.hasPrefix(temporaryPrefix)
  }

  /// Writes every change to the index now. The cache does this by itself in the background (every
  /// 256 changes, on the maintenance timer, on ``close()`` and when released); an entry
  /// whose index row was not yet written when the process died is found again from its file.
  ///
  /// - Throws: ``PersistenceError`` when the index cannot be written (`PersistenceError.Kind.diskFull`,
  ///   `PersistenceError.Kind.permissionDenied`, `PersistenceError.Kind.corrupted`, …).
  public func flush() throws {
    try writeIndex(markClean: false)
  }

  /// Writes the changes; with `markClean`, also records a clean shutdown if the index is complete.
  func writeIndex(markClean: Bool) throws {
    var taken: [String] = []
    do {
      try index.write {
        state.withLock { state in
          state.flushScheduled = false
          let changes = state.takeChanges()
          taken = changes.map(\.0)
          return (changes, markClean && state.indexIsComplete)
        }
      }
    } catch {
      state.withLock { state in
        state.restore(taken)
        state.flushScheduled = false
      }
      throw error
    }
  }

  /// Starts a background index write once enough changes have piled up, so no read or write waits for SQLite.
  func scheduleIndexWriteIfNeeded() {
    let start = state.withLock { state in
      guard state.dirty.count >= Self.flushThreshold, !state.flushScheduled, !state.isClosed else { return false }
      state.flushScheduled = true
      return true
    }
    guard start else { return }
    Task.detached(priority: .utility) { [self] in
      do { try writeIndex(markClean: false) } catch { countMaintenanceFailure() }
    }
  }

  // MARK: - Lifecycle

  /// Stops the maintenance timer, writes the index, marking a clean shutdown so that the next open trusts it
  /// without looking at the directory, and closes it. Afterwards every operation throws; ``statistics`` still answers.
  /// Releasing the cache does the same, except that the index closes when the last background task lets go of it.
  ///
  /// - Throws: ``PersistenceError`` when the index cannot be written; the cache is closed anyway.
  public func close() throws {
    maintenance.withLock { task in
      task?.cancel()
      task = nil
    }
    let wasOpen = state.withLock { state in
      defer { state.isClosed = true }
      return !state.isClosed
    }
    guard wasOpen else { return }
    do {
      try writeIndex(markClean: true)
    } catch {
      try? index.close()
      throw error
    }
    try index.close()
  }

  /// Starts the timer task: a reconciliation first if the index may be incomplete, then every
  /// ``maintenanceInterval`` on `clock`, expired entries removed, a trim and an index write. It holds the cache
  /// weakly, and stops when the cache is closed or released.
  func startMaintenance(clock: any Clock<Duration>, reconcileFirst: Bool) {
    let interval = maintenanceInterval
    let task = Task.detached { [weak self] in
      if reconcileFirst { self?.runMaintenance(reconcile: true) }
      while !Task.isCancelled {
        guard (try? await Self.sleep(on: clock, for: interval)) != nil, let self else { return }
        self.runMaintenance(reconcile: false)
      }
    }
    maintenance.withLock { $0 = task }
  }

  private static func sleep<C: Clock<Duration>>(on clock: C, for interval: Duration) async throws {
    try await clock.sleep(until: clock.now.advanced(by: interval), tolerance: nil)
  }

  private func runMaintenance(reconcile: Bool) {
    guard !state.withLock(\.isClosed) else { return }
    do {
      if reconcile { try self.reconcile() }
      try removeExpired()
      try trim()
      try writeIndex(markClean: false)
    } catch {
      countMaintenanceFailure()
    }
  }

  /// Counts a background failure, unless it is only that ``close()`` ran meanwhile.
  private func countMaintenanceFailure() {
    state.withLock { state in
      if !state.isClosed { state.statistics.maintenanceFailures += 1 }
    }
  }
}
