import Crypto
import Foundation
import KeelConcurrency

/// A ``SecureStore`` for platforms without a keychain: every secret sealed with AES-GCM in one data file, under a
/// random 256-bit key in a key file beside it. The directory is made owner-only (0700) and both files are created
/// owner-only (0600) from the start, never widened; writes go to a new file that replaces the old one atomically.
///
/// What it protects against: other users on the machine, backups or copies of the data file without the key file,
/// and casual reading of the disk. What it cannot: the same user, or root, who can read the key file too; that needs
/// a keychain or a hardware key, which Linux has no standard one of.
public final class EncryptedFileSecureStore: SecureStore {
  /// The directory holding the key file and the data file.
  public let directory: URL
  private let key: SymmetricKey
  private let secrets: Locked<[String: Data]>

  private var dataURL: URL { directory.appendingPathComponent("secrets.sealed") }

  /// A store in `directory`, created (0700) with a new key if it does not exist.
  ///
  /// - Throws: ``PersistenceError``: `PersistenceError.Kind.corrupted` when the data file does not decrypt or its
  ///   key file is missing, `PersistenceError.Kind.permissionDenied` or another failure to read or create them.
  public init(directory: URL) throws {
    self.directory = directory
    try OwnerOnlyFile.makeDirectory(directory)
    let keyURL = directory.appendingPathComponent("secrets.key")
    let dataURL = directory.appendingPathComponent("secrets.sealed")
    let fileManager = FileManager.default
    if let keyData = try OwnerOnlyFile.read(keyURL) {
      guard keyData.count == 32 else {
        throw PersistenceError(.corrupted, "The secure store's key file is damaged.", path: keyURL.path)
      }
      key = SymmetricKey(data: keyData)
    } else {
      guard !fileManager.fileExists(atPath: dataURL.path) else {
        throw PersistenceError(
          .corrupted, "The secure store's key file is missing, so its secrets cannot be read.", path: keyURL.path)
      }
      key = SymmetricKey(size: .bits256)
      try OwnerOnlyFile.write(key.withUnsafeBytes { Data($0) }, to: keyURL)
    }
    secrets = Locked(try Self.open(dataURL, with: key))
  }

  private static func open(_ url: URL, with key: SymmetricKey) throws -> [String: Data] {
    guard let sealed = try OwnerOnlyFile.read(url) else { return [:] }
    do {
      let plain = try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key)
      return try JSONDecoder().decode([String: Data].self, from: plain)
    } catch {
      throw PersistenceError(
        .corrupted, "The secure store's data file does not decrypt with its key.", path: url.path, underlying: error)
    }
  }

  /// The secret under `key`, or `nil`.
  public func data(forKey key: String) throws -> Data? { secrets.withLock { $0[key] } }

  /// Stores `data` under `key`, and rewrites the sealed file before returning.
  public func set(_ data: Data, forKey key: String) throws {
    try Self.validate(key)
    try update { $0[key] = data }
  }

  /// Removes the secret under `key`, and rewrites the sealed file before returning.
  public func removeData(forKey key: String) throws {
    try update { $0.removeValue(forKey: key) }
  }

  private func update(_ change: (inout [String: Data]) -> Void) throws {
    try secrets.withLock { secrets in
      var next = secrets
      change(&next)
      let sealed: Data
      do {
        guard let combined = try AES.GCM.seal(try JSONEncoder().encode(next), using: key).combined else {
          throw PersistenceError(.encoding, "AES-GCM produced no combined box.")
        }
        sealed = combined
      } catch {
        throw PersistenceError.wrapping(error, while: "seal the secrets", path: dataURL.path)
      }
      try OwnerOnlyFile.write(sealed, to: dataURL)
      secrets = next
    }
  }
}
