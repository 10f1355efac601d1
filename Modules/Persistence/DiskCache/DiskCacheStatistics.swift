/// What a ``DiskCache`` holds and what it has done since it was opened.
public struct DiskCacheStatistics: Sendable, Equatable {
  /// Entries in the cache.
  public var count = 0
  /// Bytes of entry files, headers included: what the size limit is measured against.
  public var totalSize = 0
  /// Reads that returned data.
  public var hits = 0
  /// Reads that returned `nil`: no entry, an expired one, or a missing, truncated or corrupted file.
  public var misses = 0
  /// Entries written.
  public var writes = 0
  /// Entries removed by a trim to the size limit.
  public var evictions = 0
  /// Entries removed because they had expired.
  public var expirations = 0
  /// Entry files found truncated or corrupted, and removed.
  public var corruptions = 0
  /// Entries found in the directory that the index had lost (written just before a crash) and taken back.
  public var adoptions = 0
  /// Times the cache listed its directory: only ``DiskCache/reconcile()`` and ``DiskCache/removeAll()`` do, never
  /// opening, reading or writing.
  public var directoryScans = 0
  /// Background maintenance passes (trim, expiry, index writes) that failed; call the operation yourself to see the
  /// error.
  public var maintenanceFailures = 0

  /// All zero.
  public init() {}
}
