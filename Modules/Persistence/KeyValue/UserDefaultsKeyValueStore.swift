#if canImport(Darwin)
  import Foundation

  /// A ``KeyValueStore`` over `UserDefaults`, on Apple platforms: values are stored as JSON data under their keys.
  ///
  /// Its only state is a `UserDefaults`, which Apple documents as thread-safe but not every SDK marks `Sendable`.
  public final class UserDefaultsKeyValueStore: KeyValueStore, @unchecked Sendable {  // UserDefaults is thread-safe
    private let defaults: UserDefaults

    /// A store over `defaults`; the standard defaults unless told otherwise.
    public init(defaults: UserDefaults = .standard) {
      self.defaults = defaults
    }

    /// The value stored under `key`, or `nil`.
    public func value<V: Decodable>(_ type: V.Type, forKey key: String) throws -> V? {
      guard let data = defaults.data(forKey: key) else { return nil }
      return try Self.decode(type, from: data, forKey: key)
    }

    /// Stores `value` under `key`.
    public func set<V: Encodable>(_ value: V, forKey key: String) throws {
      defaults.set(try Self.encode(value, forKey: key), forKey: key)
    }

    /// Removes the value under `key`.
    public func removeValue(forKey key: String) throws {
      defaults.removeObject(forKey: key)
    }
  }
#endif
