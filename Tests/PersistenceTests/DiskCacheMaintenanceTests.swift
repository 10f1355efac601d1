import Clocks
import Foundation
import TestSupport
import Testing

@testable import Persistence

/// REQUIREMENTS A8: a size limit trimmed by least recent access after writes and on a timer, and expiration, driven
/// by a test clock: no sleeps.
@Suite("DiskCache maintenance", .timeLimit(.minutes(3)))
struct DiskCacheMaintenanceTests {
  let directory = DiskCacheTestDirectory()
  /// 1,000 payload bytes and a header.
  static let entrySize = 1_000 + DiskCacheEntryFile.headerSize

  @Test("A write over the limit trims the least recently used entries down to the target ratio")
  func trimByLeastRecentAccess() throws {
    defer { directory.remove() }
    // GIVEN room for ten entries, trimmed to half
    let clock = TestClock()
    let cache = try DiskCache(
      directory: directory.url, sizeLimit: 10 * Self.entrySize, trimRatio: 0.5, clock: clock,
      now: clock.wallClock())
    for index in 0..<10 { try cache.store(Data(count: 1_000), forKey: "k\(index)") }
    #expect(cache.count == 10)
    _ = try cache.data(forKey: "k0")
    _ = try cache.data(forKey: "k1")

    // WHEN an eleventh crosses the limit
    try cache.store(Data(count: 1_000), forKey: "k10")

    // THEN the six least recently used go: five entries fit in half the limit
    let kept = try (0...10).filter { try cache.data(forKey: "k\($0)") != nil }
    #expect(kept == [0, 1, 8, 9, 10])
    #expect(cache.totalSize == 5 * Self.entrySize)
    #expect(cache.statistics.evictions == 6)
    #expect(try directory.entryFileNames().count == 5)
  }

  @Test("An explicit trim does nothing under the limit")
  func trimUnderLimit() throws {
    defer { directory.remove() }
    let cache = try DiskCache(directory: directory.url, sizeLimit: 10 * Self.entrySize, clock: TestClock())
    for index in 0..<10 { try cache.store(Data(count: 1_000), forKey: "k\(index)") }
    #expect(try cache.trim() == 0)
    #expect(cache.count == 10)
  }

  @Test("An entry expires at its TTL, or the default TTL; it is then a miss and its file is removed")
  func expiry() async throws {
    defer { directory.remove() }
    let clock = TestClock()
    let cache = try DiskCache(
      directory: directory.url, sizeLimit: 1 << 20, defaultTTL: .seconds(100), maintenanceInterval: .seconds(3_600),
      clock: clock, now: clock.wallClock())
    try cache.store(Data("short".utf8), forKey: "short", ttl: .seconds(10))
    try cache.store(Data("default".utf8), forKey: "default")

    await clock.advance(by: .seconds(9))
    #expect(try cache.data(forKey: "short") == Data("short".utf8))
    await clock.advance(by: .seconds(1))
    #expect(try cache.data(forKey: "short") == nil)
    #expect(try cache.data(forKey: "default") == Data("default".utf8))
    #expect(try directory.entryFileNames() == [try DiskCache.fileName(forKey: "default")])

    await clock.advance(by: .seconds(90))
    #expect(try cache.removeExpired() == 1)
    #expect(cache.count == 0)
    #expect(cache.statistics.expirations == 2)
    #expect(try directory.entryFileNames().isEmpty)
  }

  @Test("The maintenance timer removes expired entries and trims, on the injected clock")
  func timer() async throws {
    defer { directory.remove() }
    // GIVEN a cache whose entries went over the limit without a write to trigger a trim (the limit was lowered
    // between two opens) and one expired entry
    let clock = TestClock()
    let first = try DiskCache(directory: directory.url, sizeLimit: 1 << 20, clock: clock, now: clock.wallClock())
    for index in 0..<8 { try first.store(Data(count: 1_000), forKey: "k\(index)") }
    try first.store(Data(count: 1_000), forKey: "expiring", ttl: .seconds(30))
    try first.close()
    let cache = try DiskCache(
      directory: directory.url, sizeLimit: 4 * Self.entrySize, trimRatio: 0.5, maintenanceInterval: .seconds(60),
      clock: clock, now: clock.wallClock())
    #expect(cache.count == 9)

    // WHEN the interval passes
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(60))

    // THEN the expired entry is gone and the rest is trimmed to two entries (half of four)
    #expect(await eventually { cache.count == 2 }, "\(cache.statistics)")
    #expect(cache.statistics.expirations == 1)
    #expect(try cache.data(forKey: "k7") != nil)
    #expect(await clock.sleeperArrived(), "the timer sleeps again")
  }

  @Test("The timer stops when the cache is closed or released")
  func timerStops() async throws {
    defer { directory.remove() }
    let clock = TestClock()
    var cache: DiskCache? = try DiskCache(directory: directory.url, sizeLimit: 1_000, clock: clock)
    #expect(await clock.sleeperArrived())
    try cache?.close()
    #expect(await Self.sleepersLeft(clock))

    cache = try DiskCache(directory: directory.url, sizeLimit: 1_000, clock: clock)
    #expect(await clock.sleeperArrived())
    cache = nil
    #expect(await Self.sleepersLeft(clock))
  }

  /// Yields until no task sleeps on `clock`; whether that happened. A cancelled sleeper leaves only once its task
  /// runs again, so this waits for that rather than checking once.
  static func sleepersLeft(_ clock: TestClock<Duration>) async -> Bool {
    for _ in 0..<5_000 {
      if (try? await clock.checkSuspension()) != nil { return true }
    }
    return false
  }
}
