import Foundation
import KeelErrors

/// Non-sensitive settings and small state, as `Codable` values under string keys (REQUIREMENTS A6). Secrets go in a
/// ``SecureStore`` instead.
///
/// ```swift
/// import Foundation
///
/// let dataDirectory = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
/// let settings: any KeyValueStore = try FileKeyValueStore(url: dataDirectory.appending(path: "settings.json"))
/// try settings.set("app-1", forKey: "applicationID")
/// let applicationID = try settings.value(String.self, forKey: "applicationID")
/// ```
public protocol KeyValueStore: Sendable {
  /// The value stored under `key`, or `nil` if there is none.
  ///
  /// - Throws: ``PersistenceError`` of kind `PersistenceError.Kind.decoding` when the stored value is not a `V`.
  func value<V: Decodable>(_ type: V.Type, forKey key: String) throws -> V?

  /// Stores `value` under `key`, replacing what was there; returns once it is stored.
  ///
  /// - Throws: ``PersistenceError``: `PersistenceError.Kind.invalidInput` for an empty key,
  ///   `PersistenceError.Kind.encoding`, or a failure to write.
  func set<V: Encodable>(_ value: V, forKey key: String) throws

  /// Removes the value under `key`, if any.
  func removeValue(forKey key: String) throws
}

extension KeyValueStore {
  /// What is stored for `value` under `key`; an empty key is refused before anything is encoded.
  static func encode<V: Encodable>(_ value: V, forKey key: String) throws -> Data {
    guard !key.isEmpty else { throw PersistenceError(.invalidInput, "A key-value store key cannot be empty.") }
    do {
      // Wrapped in an array: a top-level fragment (a bare string or number) encodes on every platform.
      return try JSONEncoder().encode([value])
    } catch {
      throw PersistenceError(
        .encoding, "Cannot encode the value for key \(key): \("\(error)".clause).", underlying: error)
    }
  }

  static func decode<V: Decodable>(_ type: V.Type, from data: Data, forKey key: String) throws -> V {
    do {
      guard let value = try JSONDecoder().decode([V].self, from: data).first else {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "an empty wrapper"))
      }
      return value
    } catch {
      throw PersistenceError(
        .decoding, "The value stored for key \(key) is not a \(V.self): \("\(error)".clause).", underlying: error)
    }
  }
}
