import Foundation
import Persistence
import Testing

/// REQUIREMENTS A8: memory over disk; reads promote, writes go through, and the disk level survives a restart.
@Suite("HybridCache", .timeLimit(.minutes(3)))
struct HybridCacheTests {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-hybrid-\(UUID().uuidString)")

  private func cache() throws -> HybridCache<Data> {
    HybridCache(
      memory: MemoryCache(totalCostLimit: 1 << 20), disk: try DiskCache(directory: directory, sizeLimit: 1 << 24))
  }

  @Test("A write goes to both levels; after clearing memory a read comes from disk and is promoted")
  func promotion() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let images = try cache()
    let png = Data(repeating: 7, count: 1_000)
    try images.store(png, forKey: "https://example.com/a.png")
    #expect(try images.lookup("https://example.com/a.png")?.source == .memory)
    images.clearMemory()
    let fromDisk = try #require(try images.lookup("https://example.com/a.png"))
    #expect(fromDisk.source == .disk)
    #expect(fromDisk.value == png)
    #expect(try images.lookup("https://example.com/a.png")?.source == .memory, "promoted by the disk hit")
    try images.removeValue(forKey: "https://example.com/a.png")
    #expect(try images.lookup("https://example.com/a.png") == nil)
    try images.disk.close()
  }

  @Test("After a restart the disk level still has the entry")
  func restart() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let first = try cache()
    try first.store(Data("kept".utf8), forKey: "k")
    try first.disk.close()
    let second = try cache()
    #expect(try second.lookup("k")?.source == .disk)
    #expect(try second.value(forKey: "k") == Data("kept".utf8))
    try second.disk.close()
  }

  @Test("A disk entry that does not decode is a miss and is removed")
  func undecodable() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let disk = try DiskCache(directory: directory, sizeLimit: 1 << 24)
    try disk.store(Data("not a number".utf8), forKey: "n")
    let numbers = HybridCache<Int>(
      memory: MemoryCache(), disk: disk, encode: { Data(String($0).utf8) },
      decode: { data in
        guard let value = Int(String(decoding: data, as: UTF8.self)) else { throw CocoaError(.coderReadCorrupt) }
        return value
      }, cost: { _ in 1 })
    #expect(try numbers.lookup("n") == nil)
    #expect(try disk.data(forKey: "n") == nil, "removed")
    try numbers.store(42, forKey: "n")
    numbers.clearMemory()
    #expect(try numbers.value(forKey: "n") == 42)
    try disk.close()
  }
}
