import Persistence

extension ImageLoader {
  /// How many images the disk level holds, and their size in bytes: what stays between runs.
  public var diskUsage: (count: Int, bytes: Int) { (cache.disk.count, cache.disk.totalSize) }

  /// Empties both levels: every image is loaded from the server next time.
  ///
  /// - Throws: the disk level's `PersistenceError` when a file cannot be removed; the memory level is empty anyway.
  public func removeAll() throws {
    try cache.removeAll()
  }
}
