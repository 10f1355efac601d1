import Crypto
import Foundation
import KeelConcurrency

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Data cached on disk under string keys, in one directory, within a size limit (REQUIREMENTS A8).
///
/// - **Names:** an entry's file is named by the SHA-256 of its key in hex, so no key (`../../etc/passwd`, 10,000
///   characters, emoji) can name a file outside the directory.
/// - **Atomic writes:** an entry is written to a temporary file in the same directory, then renamed over the old
///   one, so a reader sees the old entry or the new one, never part of one, even if the writer is killed. Nothing
///   is synced to the medium (a cache need not pay for that): after a power loss an entry may be missing, or
///   damaged and then a miss.
/// - **Integrity:** each file starts with a header (magic, length, expiry, XXH64 checksum). A missing, truncated or
///   corrupted file is a miss, and is removed.
/// - **Index:** size, last access, expiry and access order of every entry live in an index Keel owns (SQLite, in
///   the directory), not in file dates. Opening loads it with one query and never lists the directory.
/// - **Size limit:** when the entries exceed `sizeLimit` bytes, the least recently used are removed until they fit
///   in `trimRatio × sizeLimit`: after each write that crosses the limit, and every `maintenanceInterval` on the
///   injected clock.
/// - **Expiry:** an entry may carry a time to live; an expired entry is a miss, and is removed when read or at the
///   next maintenance pass.
///
/// Safe to use from many tasks at once. Reads and writes are synchronous file I/O done outside the cache's lock;
/// the lock covers only the in-memory index and the final rename, so the last write to a key wins. One `DiskCache`
/// per directory at a time.
///
/// ```swift
/// import Foundation
///
/// let cachesDirectory = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
/// let url = URL(string: "https://example.com/avatar.png")!
/// let png = Data([0x89, 0x50, 0x4E, 0x47])   // the image's bytes, as downloaded
///
/// let images = try DiskCache(directory: cachesDirectory.appending(path: "images"), sizeLimit: 200 << 20)
/// try images.store(png, forKey: url.absoluteString, ttl: .seconds(7 * 24 * 3_600))
/// let cached = try images.data(forKey: url.absoluteString)   // `png`, or `nil` once expired or trimmed
/// ```
public final class DiskCache: Sendable {
  /// The directory that holds the entries and the index.
  public let directory: URL
  /// The most bytes the entries may take, headers included, before a trim.
  public let sizeLimit: Int
  /// The fraction of ``sizeLimit`` a trim brings the entries down to.
  public let trimRatio: Double
  /// The time to live of entries stored without one; `nil`: they do not expire.
  public let defaultTTL: Duration?
  /// How often the background pass removes expired entries, trims and writes the index.
  public let maintenanceInterval: Duration

  /// An index write is started in the background once this many entries have changed since the last one.
  static let flushThreshold = 256
  /// The index file's name in the directory.
  static let indexFileName = "index.sqlite"

  let directoryPath: String
  let index: DiskCacheIndex
  let state: Locked<DiskCacheState>
  let now: @Sendable () -> Date
  /// Temporary files of this instance start with this; those of earlier, crashed ones are removed by ``reconcile()``.
  let temporaryPrefix = ".tmp-\(UUID().uuidString)-"
  let maintenance = Locked<Task<Void, Never>?>(nil)

  /// Opens the cache in `directory`, creating it if needed, and starts its maintenance timer.
  ///
  /// - Parameters:
  ///   - directory: The directory for the entries and the index; nothing else should write there.
  ///   - sizeLimit: The most bytes the entries may take, headers included (32 bytes each).
  ///   - trimRatio: The fraction of `sizeLimit` a trim goes down to, greater than 0 and at most 1.
  ///   - defaultTTL: The time to live of entries stored without one; `nil`: they do not expire.
  ///   - maintenanceInterval: How often to remove expired entries, trim and write the index.
  ///   - clock: The clock the maintenance timer sleeps on.
  ///   - now: The wall-clock time for last-access and expiry timestamps, which outlive the process.
  /// - Throws: ``PersistenceError``: `PersistenceError.Kind.invalidInput` for a bad limit, ratio or duration,
  ///   `PersistenceError.Kind.permissionDenied` when the directory cannot be created or written, or a failure
  ///   to open the index. A damaged index is not an error: it is replaced, and the entries are found again.
  public init(
    directory: URL, sizeLimit: Int, trimRatio: Double = 0.8, defaultTTL: Duration? = nil,
    maintenanceInterval: Duration = .seconds(60), clock: any Clock<Duration> = ContinuousClock(),
    now: @escaping @Sendable () -> Date = { Date() }
  ) throws {
    guard sizeLimit > 0 else { throw PersistenceError(.invalidInput, "A disk cache's size limit must be positive.") }
    guard trimRatio > 0, trimRatio <= 1 else {
      throw PersistenceError(.invalidInput, "A disk cache's trim ratio must be greater than 0 and at most 1.")
    }
    guard defaultTTL.map({ $0 > .zero }) ?? true, maintenanceInterval > .zero else {
      throw PersistenceError(.invalidInput, "A disk cache's default TTL and maintenance interval must be positive.")
    }
    self.directory = directory
    self.sizeLimit = sizeLimit
    self.trimRatio = trimRatio
    self.defaultTTL = defaultTTL
    self.maintenanceInterval = maintenanceInterval
    self.now = now
    directoryPath = directory.standardizedFileURL.path
    // A directory this call creates holds no entries, so its new index is complete without a look at it.
    let isNewDirectory = !FileManager.default.fileExists(atPath: directoryPath)
    try OwnerOnlyFile.makeDirectory(URL(fileURLWithPath: directoryPath, isDirectory: true))
    guard access(directoryPath, W_OK | X_OK) == 0 else {
      throw PersistenceError.posix(errno, while: "open the disk cache directory for writing", path: directoryPath)
    }
    index = try DiskCacheIndex(path: directoryPath + "/" + Self.indexFileName)
    let (records, wasClean) = try index.load()
    let isComplete = isNewDirectory || (wasClean && !index.recreated)
    state = Locked(DiskCacheState(records: records, indexIsComplete: isComplete))
    startMaintenance(clock: clock, reconcileFirst: !isComplete)
  }

  deinit {
    maintenance.withLock { $0?.cancel() }
    if !state.withLock(\.isClosed) { try? writeIndex(markClean: true) }
  }

  // MARK: - Reading and writing

  /// The data stored under `key`, or `nil` when there is none, it has expired, or its file is missing, truncated or
  /// corrupted (then the entry is removed). A hit makes the entry the most recently used.
  ///
  /// - Throws: ``PersistenceError``: `PersistenceError.Kind.invalidInput` for an empty key or a closed cache;
  ///   `PersistenceError.Kind.permissionDenied` or `PersistenceError.Kind.io` when the file exists but cannot
  ///   be read.
  public func data(forKey key: String) throws -> Data? {
    let name = try Self.fileName(forKey: key)
    let now = now()
    // nil: no read; .some(nil): read a file the index does not know (it may have lost it in a crash).
    let version: UInt64?? = try state.withLock { state in
      try checkOpen(state)
      if let record = state.records[name] {
        guard record.isExpired(at: now) else { return .some(record.version) }
        try? removeFile(name)
        state.forget(name)
        state.statistics.expirations += 1
      } else if !state.indexIsComplete {
        return .some(nil)
      }
      state.statistics.misses += 1
      return nil
    }
    guard let version else { return nil }
    let result = try DiskCacheEntryFile.load(at: path(of: name))
    let (data, adopted) = state.withLock { state in finishRead(name, version: version, result, now: now, &state) }
    if adopted, totalSize > sizeLimit { trimAfterWrite() }
    scheduleIndexWriteIfNeeded()
    return data
  }

  /// Acts on what a read found, unless the entry was written again meanwhile: a hit, an adoption, or a removal.
  private func finishRead(
    _ name: String, version: UInt64?, _ result: DiskCacheEntryFile.ReadResult, now: Date,
    _ state: inout DiskCacheState
  ) -> (data: Data?, adopted: Bool) {
    let current = state.records[name]
    let unchanged = version == nil ? current == nil : current?.version == version
    switch result {
    case .entry(let data, let expires) where !(expires.map { $0 <= now } ?? false):
      state.statistics.hits += 1
      if current != nil {
        state.touch(name, at: now)
      } else if version == nil {
        state.insert(name, size: DiskCacheEntryFile.headerSize + data.count, expires: expires, at: now)
        state.statistics.adoptions += 1
        return (data, true)
      }
      return (data, false)
    case .entry:
      if unchanged {
        try? removeFile(name)
        state.forget(name)
        state.statistics.expirations += 1
      }
    case .missing:
      if unchanged { state.forget(name) }
    case .corrupted:
      if unchanged {
        try? removeFile(name)
        state.forget(name)
        state.statistics.corruptions += 1
      }
    }
    state.statistics.misses += 1
    return (nil, false)
  }

  /// Stores `data` under `key`, replacing what was there; returns once the entry is in place. Trims the cache if
  /// the write takes it over its size limit.
  ///
  /// - Parameters:
  ///   - data: The bytes to cache.
  ///   - key: The key; any non-empty string.
  ///   - ttl: How long the entry lives; `nil`: the cache's ``defaultTTL``.
  /// - Throws: ``PersistenceError``: `PersistenceError.Kind.invalidInput` for an empty key, a non-positive `ttl`,
  ///   an entry larger than the size limit or a closed cache; `PersistenceError.Kind.diskFull`,
  ///   `PersistenceError.Kind.permissionDenied` or `PersistenceError.Kind.io` when the file cannot be written.
  ///   On failure the previous entry, if any, is unchanged.
  public func store(_ data: Data, forKey key: String, ttl: Duration? = nil) throws {
    let name = try Self.fileName(forKey: key)
    let size = DiskCacheEntryFile.headerSize + data.count
    guard size <= sizeLimit else {
      throw PersistenceError(
        .invalidInput, "An entry of \(data.count) bytes does not fit in a disk cache of \(sizeLimit) bytes.")
    }
    if let ttl, ttl <= .zero { throw PersistenceError(.invalidInput, "A disk cache entry's TTL must be positive.") }
    let expires = (ttl ?? defaultTTL).map { now().addingTimeInterval(Self.seconds($0)) }
    let temporary = try state.withLock { state in
      try checkOpen(state)
      state.temporaryFiles += 1
      return path(of: temporaryPrefix + String(state.temporaryFiles))
    }
    try DiskCacheEntryFile.create(data, expires: expires, at: temporary)
    let overLimit = try state.withLock { state in
      // The rename is under the lock so that the index records writes in the order the files replaced each other.
      guard !state.isClosed, rename(temporary, path(of: name)) == 0 else {
        let code = errno
        unlink(temporary)
        try checkOpen(state)
        throw PersistenceError.posix(code, while: "move a cache entry into place", path: path(of: name))
      }
      state.insert(name, size: size, expires: expires, at: now())
      state.statistics.writes += 1
      return state.totalSize > sizeLimit
    }
    if overLimit { trimAfterWrite() }
    scheduleIndexWriteIfNeeded()
  }

  /// Removes the entry under `key`, if any.
  ///
  /// - Throws: ``PersistenceError``: `PersistenceError.Kind.invalidInput` for an empty key or a closed cache, or
  ///   a failure to delete the file.
  public func removeData(forKey key: String) throws {
    let name = try Self.fileName(forKey: key)
    try state.withLock { state in
      try checkOpen(state)
      try removeFile(name)
      state.forget(name)
    }
    scheduleIndexWriteIfNeeded()
  }

  // MARK: - Inspecting

  /// The number of entries.
  public var count: Int { state.withLock { $0.records.count } }

  /// The bytes the entries take, headers included.
  public var totalSize: Int { state.withLock { $0.totalSize } }

  /// What the cache holds and what it has done since it was opened.
  public var statistics: DiskCacheStatistics { state.withLock(\.snapshot) }

  // MARK: - Files

  /// The file name for `key`: the SHA-256 of its UTF-8 bytes, in lowercase hex.
  ///
  /// - Throws: `PersistenceError.Kind.invalidInput` for an empty key.
  static func fileName(forKey key: String) throws -> String {
    guard !key.isEmpty else { throw PersistenceError(.invalidInput, "A disk cache key cannot be empty.") }
    let digest = SHA256.hash(data: Data(key.utf8))
    let hex = Array("0123456789abcdef".utf8)
    var name = [UInt8]()
    name.reserveCapacity(64)
    for byte in digest {
      name.append(hex[Int(byte >> 4)])
      name.append(hex[Int(byte & 0x0F)])
    }
    return String(decoding: name, as: UTF8.self)
  }

  /// Whether `name` is an entry file's: 64 lowercase hex digits.
  static func isEntryFileName(_ name: String) -> Bool {
    name.utf8.count == 64 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }

  func path(of name: String) -> String { directoryPath + "/" + name }

  /// Deletes the file `name` in the directory; one that is already gone is not an error.
  func removeFile(_ name: String) throws {
    guard unlink(path(of: name)) == 0 || errno == ENOENT else {
      throw PersistenceError.posix(errno, while: "remove a cache entry", path: path(of: name))
    }
  }

  func checkOpen(_ state: DiskCacheState) throws {
    guard !state.isClosed else {
      throw PersistenceError(.invalidInput, "The disk cache at \(directoryPath) is closed.", path: directoryPath)
    }
  }

  static func seconds(_ duration: Duration) -> TimeInterval {
    let (seconds, attoseconds) = duration.components
    return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
  }
}
