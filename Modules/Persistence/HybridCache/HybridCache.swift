import Foundation
import KeelErrors

/// A memory cache over a disk cache, for values that are expensive to fetch and cheap to keep: images, thumbnails,
/// API responses (REQUIREMENTS A8).
///
/// - **Reads** look in memory first, then on disk; a disk hit is decoded and promoted into memory, so the next read
///   is a memory hit.
/// - **Writes** go through to both levels: the disk one first (the copy that survives a restart), then memory.
/// - **Removal** removes from both; ``clearMemory()`` empties only the memory level, as an app does under memory
///   pressure.
///
/// ```swift
/// import Foundation
///
/// let dir = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0].appending(path: "images")
/// let url = URL(string: "https://example.com/avatar.png")!
/// let png = Data([0x89, 0x50, 0x4E, 0x47])   // the image's bytes, as downloaded
///
/// let images = HybridCache(memory: MemoryCache(totalCostLimit: 50 << 20), disk: try DiskCache(directory: dir,
///                          sizeLimit: 200 << 20))
/// try images.store(png, forKey: url.absoluteString)
/// if let hit = try images.lookup(url.absoluteString) { print(hit.value.count, hit.source) }   // .memory or .disk
/// ```
public final class HybridCache<Value: Sendable>: Sendable {
  /// Where a value was found.
  public enum Source: Sendable, Hashable {
    /// In memory.
    case memory
    /// On disk (and now in memory too).
    case disk
  }

  /// A value found in the cache, and where.
  public struct Hit: Sendable {
    /// The value found.
    public let value: Value
    /// Where it was found.
    public let source: Source
  }

  /// The memory level.
  public let memory: MemoryCache<String, Value>
  /// The disk level.
  public let disk: DiskCache
  private let encode: @Sendable (Value) throws -> Data
  private let decode: @Sendable (Data) throws -> Value
  private let cost: @Sendable (Value) -> Int

  /// A two-level cache of values that `encode` turns into bytes for the disk and `decode` turns back.
  ///
  /// - Parameters:
  ///   - memory: The memory level.
  ///   - disk: The disk level.
  ///   - encode: The bytes stored on disk for a value.
  ///   - decode: The value read back from disk; throwing makes the entry a miss, and removes it.
  ///   - cost: What a value counts against the memory level's cost limit, such as its size in bytes.
  public init(
    memory: MemoryCache<String, Value>, disk: DiskCache, encode: @escaping @Sendable (Value) throws -> Data,
    decode: @escaping @Sendable (Data) throws -> Value, cost: @escaping @Sendable (Value) -> Int
  ) {
    self.memory = memory
    self.disk = disk
    self.encode = encode
    self.decode = decode
    self.cost = cost
  }

  /// The value for `key` and where it was found, or `nil`. A disk hit is promoted into memory.
  ///
  /// - Throws: ``PersistenceError`` when the disk cannot be read (a damaged entry is a miss, not an error).
  public func lookup(_ key: String) throws -> Hit? {
    if let value = memory.object(forKey: key) { return Hit(value: value, source: .memory) }
    guard let data = try disk.data(forKey: key) else { return nil }
    let value: Value
    do {
      value = try decode(data)
    } catch {
      try disk.removeData(forKey: key)
      return nil
    }
    memory.setObject(value, forKey: key, cost: cost(value))
    return Hit(value: value, source: .disk)
  }

  /// The value for `key`, or `nil`. See ``lookup(_:)``.
  public func value(forKey key: String) throws -> Value? { try lookup(key)?.value }

  /// Stores `value` for `key` on disk, then in memory.
  ///
  /// - Parameters:
  ///   - value: The value.
  ///   - key: The key.
  ///   - ttl: How long the entry lives on both levels; `nil` for each level's default.
  /// - Throws: ``PersistenceError``: `PersistenceError.Kind.encoding` when the value cannot be encoded, or a
  ///   failure to write; then nothing is stored in memory either.
  public func store(_ value: Value, forKey key: String, ttl: Duration? = nil) throws {
    let data: Data
    do {
      data = try encode(value)
    } catch {
      throw PersistenceError(
        .encoding, "Cannot encode the value for key \(key): \("\(error)".clause).", underlying: error)
    }
    try disk.store(data, forKey: key, ttl: ttl)
    memory.setObject(value, forKey: key, cost: cost(value), ttl: ttl)
  }

  /// Removes the value for `key` from both levels.
  public func removeValue(forKey key: String) throws {
    memory.removeObject(forKey: key)
    try disk.removeData(forKey: key)
  }

  /// Empties the memory level only; the disk level still has every entry.
  public func clearMemory() { memory.removeAllObjects() }

  /// Empties both levels.
  public func removeAll() throws {
    memory.removeAllObjects()
    try disk.removeAll()
  }
}

extension HybridCache where Value == Data {
  /// A two-level cache of bytes, each costing its size in memory.
  public convenience init(memory: MemoryCache<String, Data>, disk: DiskCache) {
    self.init(memory: memory, disk: disk, encode: { $0 }, decode: { $0 }, cost: { $0.count })
  }
}
