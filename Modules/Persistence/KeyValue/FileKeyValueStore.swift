import Foundation
import KeelConcurrency

/// A ``KeyValueStore`` in one JSON file, written atomically (a temporary file, then a rename), so a crash leaves
/// either the old file or the new one, never half of one. Values live in memory too: reads never touch the disk.
///
/// Meant for settings and small state (kilobytes): every write rewrites the whole file. For many records, use a
/// ``DurableQueue`` or a database.
public final class FileKeyValueStore: KeyValueStore {
  /// The JSON file that holds every value.
  public let url: URL
  private let values: Locked<[String: Data]>

  /// A store in the file at `url`, created on the first write; its directory is created if needed.
  ///
  /// - Throws: ``PersistenceError`` of kind `PersistenceError.Kind.corrupted` when the file exists but is not a
  ///   store, or a failure to read it.
  public init(url: URL) throws {
    self.url = url
    values = Locked(try Self.load(url))
  }

  private static func load(_ url: URL) throws -> [String: Data] {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
      return [:]
    } catch {
      throw PersistenceError.wrapping(error, while: "read the key-value store", path: url.path)
    }
    guard let text = try? JSONDecoder().decode([String: String].self, from: data) else {
      throw PersistenceError(.corrupted, "The key-value store at \(url.path) is not valid.", path: url.path)
    }
    return text.mapValues { Data($0.utf8) }
  }

  /// The value stored under `key`, or `nil`.
  public func value<V: Decodable>(_ type: V.Type, forKey key: String) throws -> V? {
    guard let data = values.withLock({ $0[key] }) else { return nil }
    return try Self.decode(type, from: data, forKey: key)
  }

  /// Stores `value` under `key` and rewrites the file; returns once the file is replaced.
  public func set<V: Encodable>(_ value: V, forKey key: String) throws {
    let data = try Self.encode(value, forKey: key)
    try update { $0[key] = data }
  }

  /// Removes the value under `key` and rewrites the file.
  public func removeValue(forKey key: String) throws {
    try update { $0.removeValue(forKey: key) }
  }

  /// Applies `change` and writes the file under the lock, so that writes land in the order they were made. The
  /// in-memory values change only once the file is written.
  private func update(_ change: (inout [String: Data]) -> Void) throws {
    try values.withLock { values in
      var next = values
      change(&next)
      let text = next.mapValues { String(decoding: $0, as: UTF8.self) }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      do {
        try OwnerOnlyFile.makeDirectory(url.deletingLastPathComponent(), ownedByKeel: false)
        try OwnerOnlyFile.write(try encoder.encode(text), to: url)
      } catch {
        throw PersistenceError.wrapping(error, while: "write the key-value store", path: url.path)
      }
      values = next
    }
  }
}
