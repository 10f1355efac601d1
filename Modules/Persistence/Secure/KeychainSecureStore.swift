#if canImport(Security)
  import Foundation
  import Security

  /// A ``SecureStore`` in the Keychain, on Apple platforms: each secret a generic password under ``service``, readable
  /// after the device's first unlock and never synced or backed up to other devices.
  public final class KeychainSecureStore: SecureStore {
    /// The Keychain service the secrets are filed under, such as the app's bundle identifier.
    public let service: String

    /// A store filing its secrets under `service`.
    public init(service: String) {
      self.service = service
    }

    private func query(_ key: String) -> [String: Any] {
      [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
        kSecAttrAccount as String: key,
      ]
    }

    /// The secret under `key`, or `nil`.
    public func data(forKey key: String) throws -> Data? {
      var query = query(key)
      query[kSecReturnData as String] = true
      query[kSecMatchLimit as String] = kSecMatchLimitOne
      var result: AnyObject?
      let status = SecItemCopyMatching(query as CFDictionary, &result)
      if status == errSecItemNotFound { return nil }
      guard status == errSecSuccess else { throw Self.failure(status, "read", key) }
      return result as? Data
    }

    /// Stores `data` under `key`.
    public func set(_ data: Data, forKey key: String) throws {
      try Self.validate(key)
      let attributes: [String: Any] = [
        kSecValueData as String: data,
        kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
      ]
      var status = SecItemUpdate(query(key) as CFDictionary, attributes as CFDictionary)
      if status == errSecItemNotFound {
        status = SecItemAdd(query(key).merging(attributes) { $1 } as CFDictionary, nil)
      }
      guard status == errSecSuccess else { throw Self.failure(status, "store", key) }
    }

    /// Removes the secret under `key`.
    public func removeData(forKey key: String) throws {
      let status = SecItemDelete(query(key) as CFDictionary)
      guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.failure(status, "remove", key) }
    }

    private static func failure(_ status: OSStatus, _ operation: String, _ key: String) -> PersistenceError {
      let message = SecCopyErrorMessageString(status, nil) as String? ?? "OSStatus \(status)"
      let kind: PersistenceError.Kind = status == errSecInteractionNotAllowed ? .permissionDenied : .io
      return PersistenceError(kind, "Could not \(operation) the Keychain secret \(key): \(message).")
    }
  }
#endif
