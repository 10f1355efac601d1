import Clocks
import Foundation
import TestSupport
import Testing

@testable import Persistence

/// REQUIREMENTS A8: entries, sizes and access order survive a restart; opening reads the index and never lists the
/// directory; a lost or damaged index is rebuilt from the files, off the hot path.
@Suite("DiskCache restart", .timeLimit(.minutes(3)))
struct DiskCacheRestartTests {
  let directory = DiskCacheTestDirectory()
  static let entrySize = 100 + DiskCacheEntryFile.headerSize

  func open(sizeLimit: Int = 1 << 20, trimRatio: Double = 0.8) throws -> DiskCache {
    try DiskCache(directory: directory.url, sizeLimit: sizeLimit, trimRatio: trimRatio, clock: TestClock())
  }

  @Test("Reopening keeps entries and access order")
  func restartKeepsEntriesAndOrder() throws {
    defer { directory.remove() }
    // GIVEN five entries, read in the reverse order of their file names (the order in which the index's table is
    // scanned), so that an access order lost on reopening could not come out right by chance
    let first = try open(sizeLimit: 5 * Self.entrySize, trimRatio: 0.6)
    let keys = (0..<5).map { "k\($0)" }
    for key in keys { try first.store(Data(key.utf8) + Data(count: 100 - key.utf8.count), forKey: key) }
    let byName = try keys.sorted { try DiskCache.fileName(forKey: $0) < DiskCache.fileName(forKey: $1) }
    for key in byName.reversed() { _ = try first.data(forKey: key) }
    try first.close()

    // WHEN reopened, and a sixth entry crosses the limit
    let cache = try open(sizeLimit: 5 * Self.entrySize, trimRatio: 0.6)
    #expect(cache.count == 5)
    #expect(cache.totalSize == 5 * Self.entrySize)
    #expect(cache.statistics.directoryScans == 0)
    try cache.store(Data(count: 100), forKey: "k5")

    // THEN the three read first before the restart were trimmed: the two read last and the new one are kept
    let kept = try (keys + ["k5"]).filter { try cache.data(forKey: $0) != nil }
    #expect(Set(kept) == Set(byName.prefix(2) + ["k5"]))
    #expect(try cache.data(forKey: byName[0]) == Data(byName[0].utf8) + Data(count: 98))
  }

  @Test("Reopening keeps expiry times")
  func restartKeepsExpiry() async throws {
    defer { directory.remove() }
    let clock = TestClock()
    let first = try DiskCache(directory: directory.url, sizeLimit: 1 << 20, clock: clock, now: clock.wallClock())
    try first.store(Data("x".utf8), forKey: "expiring", ttl: .seconds(60))
    try first.close()
    let cache = try DiskCache(directory: directory.url, sizeLimit: 1 << 20, clock: clock, now: clock.wallClock())
    #expect(try cache.data(forKey: "expiring") == Data("x".utf8))
    await clock.advance(by: .seconds(60))
    #expect(try cache.data(forKey: "expiring") == nil)
    #expect(cache.statistics.expirations == 1)
  }

  @Test("Opening a cache of 10,000 entries loads the index and does not list the directory")
  func startupDoesNotListTheDirectory() async throws {
    defer { directory.remove() }
    // GIVEN 10,000 entries, cleanly closed, then an entry file the index does not know and a stale temporary file
    // (written on a thread of their own: seconds of file writes would hold one of the cooperative pool's threads)
    try await onOwnThread { [self] in
      let first = try open()
      for index in 0..<10_000 { try first.store(Data("\(index)".utf8), forKey: "key-\(index)") }
      try first.close()
    }
    let orphan = try DiskCache.fileName(forKey: "orphan")
    try FileManager.default.copyItem(
      at: directory.url.appendingPathComponent(try DiskCache.fileName(forKey: "key-1")),
      to: directory.url.appendingPathComponent(orphan))
    let stale = directory.url.appendingPathComponent(".tmp-killed-writer-1")
    try Data("partial".utf8).write(to: stale)

    // WHEN it is reopened
    let cache = try open()

    // THEN it knows its 10,000 entries without having listed the directory: the unknown files are untouched
    #expect(cache.count == 10_000)
    #expect(cache.statistics.directoryScans == 0)
    #expect(try cache.data(forKey: "key-9999") == Data("9999".utf8))
    #expect(try cache.data(forKey: "orphan") == nil, "a clean index is trusted: no file lookup for unknown keys")
    #expect(FileManager.default.fileExists(atPath: stale.path))

    // and only reconcile() lists it, adopting the orphan and removing the temporary file
    try cache.reconcile()
    #expect(cache.statistics.directoryScans == 1)
    #expect(cache.count == 10_001)
    #expect(try cache.data(forKey: "orphan") == Data("1".utf8))
    #expect(!FileManager.default.fileExists(atPath: stale.path))
  }

  @Test("A damaged index is replaced, and the entries are found again from their files")
  func damagedIndex() throws {
    defer { directory.remove() }
    let first = try open()
    for index in 0..<20 { try first.store(Data("\(index)".utf8), forKey: "key-\(index)") }
    try first.close()
    let index = directory.url.appendingPathComponent(DiskCache.indexFileName)
    for suffix in ["-wal", "-shm"] {
      try? FileManager.default.removeItem(atPath: index.path + suffix)
    }
    try Data(repeating: 0xAB, count: 8_192).write(to: index)

    let cache = try open()
    // Before the background pass, a read finds the file by its name and adopts it.
    #expect(try cache.data(forKey: "key-3") == Data("3".utf8))
    try cache.reconcile()
    #expect(cache.count == 20)
    #expect(try cache.data(forKey: "key-19") == Data("19".utf8))
  }

  @Test("After an unclean shutdown, reads find entries the index lost, and the background pass adopts the rest")
  func uncleanShutdown() async throws {
    defer { directory.remove() }
    // GIVEN entries written after the index's last write, as when a process is killed: a copy of the directory
    // taken while the cache is open
    let first = try open()
    try first.store(Data("indexed".utf8), forKey: "indexed")
    try first.flush()
    for index in 0..<5 { try first.store(Data("\(index)".utf8), forKey: "lost-\(index)") }
    try FileManager.default.copyItem(at: directory.url, to: directory.root.appendingPathComponent("copy"))
    try first.close()
    try FileManager.default.removeItem(at: directory.url)
    try FileManager.default.moveItem(at: directory.root.appendingPathComponent("copy"), to: directory.url)

    // WHEN reopened
    let cache = try open()

    // THEN a read of a lost key finds its file, and the background reconciliation adopts the others
    #expect(try cache.data(forKey: "lost-0") == Data("0".utf8))
    #expect(await eventually { cache.count == 6 })
    #expect(cache.statistics.directoryScans == 1)
    #expect(cache.statistics.adoptions == 5)
  }
}
