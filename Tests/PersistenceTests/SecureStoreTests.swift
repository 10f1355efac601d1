import Foundation
import Persistence
import Testing

/// REQUIREMENTS A6: secrets in an encrypted, owner-only file off Apple platforms.
@Suite("SecureStore", .timeLimit(.minutes(3)))
struct SecureStoreTests {
  struct Tokens: Codable, Equatable {
    let access: String
    let refresh: String
  }

  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-secure-\(UUID().uuidString)")
  let tokens = Tokens(access: "ACCESS-in-clear-would-be-a-leak", refresh: "REFRESH-in-clear-would-be-a-leak")

  private func mode(_ path: String) throws -> Int {
    try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
  }

  @Test("Secrets round-trip and survive reopening; the directory is 0700 and its files 0600")
  func roundTripAndModes() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try EncryptedFileSecureStore(directory: directory)
    try store.set(tokens, forKey: "session")
    try store.set(Data([1, 2, 3]), forKey: "raw")
    try store.removeData(forKey: "raw")

    let reopened = try EncryptedFileSecureStore(directory: directory)
    #expect(try reopened.value(Tokens.self, forKey: "session") == tokens)
    #expect(try reopened.data(forKey: "raw") == nil)

    #expect(try mode(directory.path) == 0o700)
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    #expect(files.sorted() == ["secrets.key", "secrets.sealed"], "no temporary file is left behind")
    for file in files { #expect(try mode(directory.appendingPathComponent(file).path) == 0o600, "\(file)") }
  }

  @Test("The data file does not hold the secret in clear text")
  func encrypted() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    try EncryptedFileSecureStore(directory: directory).set(tokens, forKey: "session")
    let sealed = try Data(contentsOf: directory.appendingPathComponent("secrets.sealed"))
    let text = String(decoding: sealed, as: UTF8.self)
    #expect(!text.contains("ACCESS") && !text.contains("REFRESH") && !text.contains("session"))
  }

  @Test("A tampered data file, or a missing key, is a typed corrupted error, not a crash and not silent loss")
  func tampering() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    try EncryptedFileSecureStore(directory: directory).set(tokens, forKey: "session")
    let dataURL = directory.appendingPathComponent("secrets.sealed")
    var sealed = try Data(contentsOf: dataURL)
    sealed[sealed.count / 2] ^= 0xFF
    try sealed.write(to: dataURL)
    let tampered = #expect(throws: PersistenceError.self) { _ = try EncryptedFileSecureStore(directory: directory) }
    #expect(tampered?.kind == .corrupted)

    try FileManager.default.removeItem(at: directory.appendingPathComponent("secrets.key"))
    let keyless = #expect(throws: PersistenceError.self) { _ = try EncryptedFileSecureStore(directory: directory) }
    #expect(keyless?.kind == .corrupted)
  }

  @Test("A directory created with wider permissions is narrowed to 0700; empty keys are refused")
  func narrowsAndValidates() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    _ = chmod(directory.path, 0o755)
    let store = try EncryptedFileSecureStore(directory: directory)
    #expect(try mode(directory.path) == 0o700)
    for store in [store, InMemorySecureStore()] as [any SecureStore] {
      let empty = #expect(throws: PersistenceError.self) { try store.set(Data(), forKey: "") }
      #expect(empty?.kind == .invalidInput)
    }
  }
}
