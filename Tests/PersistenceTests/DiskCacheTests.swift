import Clocks
import Foundation
import Testing

@testable import Persistence

/// REQUIREMENTS A8: a disk cache whose files are named by hash, written atomically, checked on every read, and safe
/// under concurrent use.
@Suite("DiskCache", .timeLimit(.minutes(3)))
struct DiskCacheTests {
  let directory = DiskCacheTestDirectory()

  func makeCache(sizeLimit: Int = 1 << 20) throws -> DiskCache {
    try DiskCache(directory: directory.url, sizeLimit: sizeLimit, clock: TestClock())
  }

  @Test("Data round-trips, is replaced by a later store and removed by removeData; an unknown key is nil")
  func roundTrip() throws {
    defer { directory.remove() }
    // GIVEN
    let cache = try makeCache()
    // WHEN
    try cache.store(Data("first".utf8), forKey: "greeting")
    try cache.store(Data("second".utf8), forKey: "greeting")
    try cache.store(Data(), forKey: "empty")
    // THEN
    #expect(try cache.data(forKey: "greeting") == Data("second".utf8))
    #expect(try cache.data(forKey: "empty") == Data())
    #expect(try cache.data(forKey: "unknown") == nil)
    #expect(cache.count == 2)
    #expect(cache.totalSize == 2 * DiskCacheEntryFile.headerSize + 6)
    try cache.removeData(forKey: "greeting")
    #expect(try cache.data(forKey: "greeting") == nil)
    #expect(try directory.entryFileNames() == [try DiskCache.fileName(forKey: "empty")])
    try cache.close()
    #expect(try directory.fileNames() == [try DiskCache.fileName(forKey: "empty"), "index.sqlite"], "no log left")
  }

  @Test("An empty key, a bad TTL, an oversized entry and a closed cache are invalidInput errors")
  func invalidInput() throws {
    defer { directory.remove() }
    let cache = try makeCache(sizeLimit: 1_000)
    let emptyKey = #expect(throws: PersistenceError.self) { try cache.store(Data([1]), forKey: "") }
    #expect(emptyKey?.kind == .invalidInput)
    #expect(throws: PersistenceError.self) { _ = try cache.data(forKey: "") }
    let badTTL = #expect(throws: PersistenceError.self) { try cache.store(Data([1]), forKey: "k", ttl: .zero) }
    #expect(badTTL?.kind == .invalidInput)
    let tooBig = #expect(throws: PersistenceError.self) { try cache.store(Data(count: 1_000), forKey: "k") }
    #expect(tooBig?.kind == .invalidInput)
    let badRatio = #expect(throws: PersistenceError.self) {
      _ = try DiskCache(directory: directory.url, sizeLimit: 10, trimRatio: 1.5)
    }
    #expect(badRatio?.kind == .invalidInput)
    try cache.close()
    let closed = #expect(throws: PersistenceError.self) { _ = try cache.data(forKey: "k") }
    #expect(closed?.kind == .invalidInput)
  }

  @Test(
    "Corrupted, truncated and emptied files are misses, and are removed",
    arguments: ["flip a payload byte", "flip a header byte", "truncate", "empty", "append"])
  func corruption(damage: String) throws {
    defer { directory.remove() }
    let cache = try makeCache()
    try cache.store(Data(repeating: 7, count: 4_096), forKey: "k")
    try cache.store(Data("intact".utf8), forKey: "other")
    let path = directory.url.appendingPathComponent(try DiskCache.fileName(forKey: "k")).path
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    switch damage {
    case "flip a payload byte": bytes[2_000] ^= 0x01
    case "flip a header byte": bytes[17] ^= 0x80  // the expiry
    case "truncate": bytes = bytes.prefix(bytes.count - 1)
    case "empty": bytes = Data()
    default: bytes.append(0)
    }
    try bytes.write(to: URL(fileURLWithPath: path))

    #expect(try cache.data(forKey: "k") == nil)
    #expect(!FileManager.default.fileExists(atPath: path))
    #expect(cache.count == 1)
    #expect(cache.statistics.corruptions == 1)
    #expect(try cache.data(forKey: "other") == Data("intact".utf8))
  }

  @Test("A deleted file is a miss, and its entry is forgotten")
  func missingFile() throws {
    defer { directory.remove() }
    let cache = try makeCache()
    try cache.store(Data("x".utf8), forKey: "k")
    try FileManager.default.removeItem(at: directory.url.appendingPathComponent(try DiskCache.fileName(forKey: "k")))
    #expect(try cache.data(forKey: "k") == nil)
    #expect(cache.count == 0)
    #expect(cache.totalSize == 0)
  }

  @Test("Path-hostile, very long and unicode keys stay inside the directory, as hashed file names")
  func hostileKeys() throws {
    defer { directory.remove() }
    let cache = try makeCache()
    let keys = [
      "../../etc/passwd", "/etc/passwd", "..", ".", "a/b/../../../c", String(repeating: "k", count: 10_000),
      "ключ 🔑 鍵", "nul\0byte", "back\\slash", ".tmp-looks-temporary", "index.sqlite",
    ]
    for (index, key) in keys.enumerated() { try cache.store(Data("value \(index)".utf8), forKey: key) }

    for (index, key) in keys.enumerated() { #expect(try cache.data(forKey: key) == Data("value \(index)".utf8)) }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.root.path) == ["cache"])
    let names = try directory.fileNames().filter { !$0.hasPrefix("index.sqlite") }
    #expect(names.count == keys.count)
    #expect(names.allSatisfy(DiskCache.isEntryFileName))
  }

  @Test("Stats count hits, misses, writes and removals")
  func stats() throws {
    defer { directory.remove() }
    let cache = try makeCache()
    try cache.store(Data("a".utf8), forKey: "a")
    try cache.store(Data("b".utf8), forKey: "b")
    _ = try cache.data(forKey: "a")
    _ = try cache.data(forKey: "a")
    _ = try cache.data(forKey: "missing")
    try cache.removeAll()

    var expected = DiskCacheStatistics()
    expected.hits = 2
    expected.misses = 1
    expected.writes = 2
    expected.directoryScans = 1  // removeAll
    #expect(cache.statistics == expected)
    #expect(try directory.entryFileNames().isEmpty)
  }

  @Test(
    "Eight tasks reading and writing the same keys: a read is a miss or a complete value, never torn or corrupt; the last write wins"
  )
  func concurrentUse() async throws {
    defer { directory.remove() }
    let cache = try makeCache(sizeLimit: 64 << 20)
    let keys = ["a", "b", "c", "d"]
    // Each value names its key, writer and iteration, and its length depends on them, so a torn or mixed-up read shows.
    @Sendable func value(_ key: String, _ writer: Int, _ iteration: Int) -> Data {
      let text = "\(key)|\(writer)|\(iteration)|"
      return Data(String(repeating: text, count: 50 + (writer * 37 + iteration) % 200).utf8)
    }
    @Sendable func isValid(_ data: Data, for key: String) -> Bool {
      let text = String(decoding: data, as: UTF8.self)
      let parts = text.split(separator: "|", maxSplits: 3)
      guard parts.count >= 3, parts[0] == key, let writer = Int(parts[1]), let iteration = Int(parts[2]) else {
        return false
      }
      return data == value(key, writer, iteration)
    }
    let lastWrites = try await withThrowingTaskGroup(of: [String: Data].self) { group in
      for writer in 0..<8 {
        group.addTask {
          var last: [String: Data] = [:]
          for iteration in 0..<150 {
            let key = keys[(writer + iteration) % keys.count]
            if iteration % 3 == 0 {
              let data = value(key, writer, iteration)
              try cache.store(data, forKey: key)
              last[key] = data
            } else if let data = try cache.data(forKey: key) {
              #expect(isValid(data, for: key))
            }
          }
          return last
        }
      }
      return try await group.reduce(into: [[String: Data]]()) { $0.append($1) }
    }
    for key in keys {
      let stored = try #require(try cache.data(forKey: key))
      #expect(isValid(stored, for: key))
      #expect(lastWrites.contains { $0[key] == stored }, "the value is one some writer stored last")
    }
    #expect(cache.count == keys.count)
    let sizes = try directory.entryFileNames().map {
      try FileManager.default.attributesOfItem(atPath: directory.url.appendingPathComponent($0).path)[.size] as! Int
    }
    #expect(cache.totalSize == sizes.reduce(0, +), "the index agrees with the files")
    #expect(try directory.fileNames().allSatisfy { !$0.hasPrefix(".tmp-") })
    #expect(cache.statistics.corruptions == 0, "no read found a file it could not trust")
  }

  @Test("A directory that cannot be created or written is a permissionDenied error")
  func permissionDenied() throws {
    #if os(Linux)
      // Tests run as root here, where a chmod'ed directory denies nothing; /sys refuses even root.
      let cannotCreate = #expect(throws: PersistenceError.self) {
        _ = try DiskCache(directory: URL(fileURLWithPath: "/sys/keel-disk-cache-\(UUID())"), sizeLimit: 1_000)
      }
      #expect(cannotCreate?.kind == .permissionDenied)
      let cannotWrite = #expect(throws: PersistenceError.self) {
        _ = try DiskCache(directory: URL(fileURLWithPath: "/proc/sys"), sizeLimit: 1_000)
      }
      #expect(cannotWrite?.kind == .permissionDenied)
    #endif
    if getuid() != 0 {
      defer { directory.remove() }
      try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
      try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: directory.url.path)
      defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.url.path) }
      let readOnly = #expect(throws: PersistenceError.self) {
        _ = try DiskCache(directory: directory.url, sizeLimit: 1_000)
      }
      #expect(readOnly?.kind == .permissionDenied)
    }
  }

  @Test("The checksum is XXH64, as libxxhash computes it")
  func checksum() {
    let vectors: [([UInt8], UInt64, UInt64)] = [
      ([], 0, 0xEF46_DB37_51D8_E999),
      (Array("abc".utf8), 0, 0x44BC_2CF5_AD77_0999),
      (Array(0..<100), 0, 0x6AC1_E580_3216_6597),
      (Array(0..<100), 7, 0x8065_3E7E_9B88_7CDD),
      (Array("Keel disk cache entry, long enough for the stripes.".utf8), 0, 0x171A_2D01_C3E8_7B9E),
    ]
    for (bytes, seed, expected) in vectors {
      #expect(bytes.withUnsafeBytes { XXHash64.hash($0, seed: seed) } == expected)
    }
  }
}
