import Foundation
import KeelConcurrency

/// A ``SecureStore`` in memory only: for tests and previews.
public final class InMemorySecureStore: SecureStore {
  private let secrets = Locked<[String: Data]>([:])

  /// An empty store.
  public init() {}

  /// The secret under `key`, or `nil`.
  public func data(forKey key: String) throws -> Data? { secrets.withLock { $0[key] } }

  /// Stores `data` under `key`.
  public func set(_ data: Data, forKey key: String) throws {
    try Self.validate(key)
    secrets.withLock { $0[key] = data }
  }

  /// Removes the secret under `key`.
  public func removeData(forKey key: String) throws {
    _ = secrets.withLock { $0.removeValue(forKey: key) }
  }
}
