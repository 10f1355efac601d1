import Foundation
import KeelErrors

/// Secrets (tokens, keys) under string keys (REQUIREMENTS A6): the Keychain on Apple platforms
/// (`KeychainSecureStore`), an encrypted owner-only file elsewhere (``EncryptedFileSecureStore``), memory in tests
/// (``InMemorySecureStore``).
///
/// ```swift
/// import Foundation
///
/// struct Tokens: Codable { var access: String; var refresh: String }
/// let dataDirectory = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
/// let tokens = Tokens(access: "a1", refresh: "r1")
///
/// let secrets: any SecureStore = try EncryptedFileSecureStore(directory: dataDirectory.appending(path: "secrets"))
/// try secrets.set(tokens, forKey: "session")
/// let restored = try secrets.value(Tokens.self, forKey: "session")
/// ```
public protocol SecureStore: Sendable {
  /// The secret stored under `key`, or `nil`.
  func data(forKey key: String) throws -> Data?

  /// Stores `data` under `key`, replacing what was there; returns once it is stored.
  func set(_ data: Data, forKey key: String) throws

  /// Removes the secret under `key`, if any.
  func removeData(forKey key: String) throws
}

extension SecureStore {
  /// The `Decodable` value stored under `key` as JSON, or `nil`.
  ///
  /// - Throws: ``PersistenceError`` of kind `PersistenceError.Kind.decoding` when it is not a `V`.
  public func value<V: Decodable>(_ type: V.Type, forKey key: String) throws -> V? {
    guard let data = try data(forKey: key) else { return nil }
    do {
      return try JSONDecoder().decode(V.self, from: data)
    } catch {
      throw PersistenceError(
        .decoding, "The secret stored for key \(key) is not a \(V.self): \("\(error)".clause).", underlying: error)
    }
  }

  /// Stores `value` under `key` as JSON.
  ///
  /// - Throws: ``PersistenceError`` of kind `PersistenceError.Kind.encoding`, or a failure to store.
  public func set<V: Encodable>(_ value: V, forKey key: String) throws {
    let data: Data
    do {
      data = try JSONEncoder().encode(value)
    } catch {
      throw PersistenceError(
        .encoding, "Cannot encode the secret for key \(key): \("\(error)".clause).", underlying: error)
    }
    try set(data, forKey: key)
  }

  static func validate(_ key: String) throws {
    guard !key.isEmpty else { throw PersistenceError(.invalidInput, "A secure store key cannot be empty.") }
  }
}
