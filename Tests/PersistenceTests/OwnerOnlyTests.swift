import Clocks
import Foundation
import Persistence
import Testing

/// Every file and directory Persistence creates is owner-only from the start, whatever the umask lets
/// through; a directory it did not create keeps its mode.
@Suite("Owner-only files", .timeLimit(.minutes(3)))
struct OwnerOnlyTests {
  let root = FileManager.default.temporaryDirectory.appendingPathComponent("keel-owner-only-\(UUID().uuidString)")

  private func mode(_ url: URL) throws -> Int {
    try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
  }

  /// Every path below `root` whose mode is wider than 0700 (directories) or 0600 (files).
  private func wider() throws -> [String] {
    try (FileManager.default.subpaths(atPath: root.path) ?? []).compactMap { path in
      let url = root.appendingPathComponent(path)
      var isDirectory: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
      let mode = try mode(url)
      return mode & ~(isDirectory.boolValue ? 0o700 : 0o600) == 0 ? nil : "\(path) \(String(mode, radix: 8))"
    }
  }

  @Test("A durable queue's directory, database and WAL files are 0700 and 0600")
  func durableQueue() async throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let queue = try DurableQueue<String>(
      url: root.appendingPathComponent("queue/events.sqlite"), capacity: 10, overflow: .rejectNew)
    _ = try await queue.enqueue("a token=t0ps3cret")
    #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("queue/events.sqlite-wal").path))
    let wider = try wider()
    #expect(wider.isEmpty, "\(wider)")
  }

  @Test("A disk cache's directory, index and entries, and a key-value store's file, are owner-only")
  func diskCacheAndKeyValueStore() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let cache = try DiskCache(
      directory: root.appendingPathComponent("images"), sizeLimit: 1 << 20, clock: TestClock())
    try cache.store(Data("png".utf8), forKey: "a")
    let store = try FileKeyValueStore(url: root.appendingPathComponent("settings/values.json"))
    try store.set("value", forKey: "key")
    let wider = try wider()
    #expect(wider.isEmpty, "\(wider)")
  }

  @Test("A directory Keel did not create keeps its mode; one it owns is narrowed")
  func existingDirectories() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let shared = root.appendingPathComponent("shared")
    try FileManager.default.createDirectory(
      at: shared, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
    _ = try DurableQueue<String>(url: shared.appendingPathComponent("q.sqlite"), capacity: 1, overflow: .rejectNew)
    #expect(try mode(shared) == 0o755, "the folder the app named is left as it is")
    #expect(try mode(shared.appendingPathComponent("q.sqlite")) == 0o600)

    let cacheDirectory = root.appendingPathComponent("cache")
    try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
    _ = try DiskCache(directory: cacheDirectory, sizeLimit: 1_000, clock: TestClock())
    #expect(try mode(cacheDirectory) == 0o700, "a cache's own directory is narrowed")
  }
}
