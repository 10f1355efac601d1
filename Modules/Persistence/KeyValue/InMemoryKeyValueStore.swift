import Foundation
import KeelConcurrency

/// A ``KeyValueStore`` that keeps values in memory only: for tests and previews.
public final class InMemoryKeyValueStore: KeyValueStore {
  private let values = Locked<[String: Data]>([:])

  /// An empty store.
  public init() {}

  /// The value stored under `key`, or `nil`.
  public func value<V: Decodable>(_ type: V.Type, forKey key: String) throws -> V? {
    guard let data = values.withLock({ $0[key] }) else { return nil }
    return try Self.decode(type, from: data, forKey: key)
  }

  /// Stores `value` under `key`.
  public func set<V: Encodable>(_ value: V, forKey key: String) throws {
    let data = try Self.encode(value, forKey: key)
    values.withLock { $0[key] = data }
  }

  /// Removes the value under `key`.
  public func removeValue(forKey key: String) throws {
    _ = values.withLock { $0.removeValue(forKey: key) }
  }
}
