import Foundation
import Persistence

/// The DiskCache rows: writing and reading 64 KiB entries against plain atomic file writes, and trimming a
/// 10,000-entry cache against listing the directory, as Kingfisher and SDWebImage do.
enum DiskCacheBenchmarks {
  /// Entries written and then read in the write-and-read row.
  static let writeReadCount = 1_000
  /// Entries in the cache the trim row trims.
  static let trimEntries = 10_000

  static func comparisons(quick: Bool) -> [Comparison] {
    let count = quick ? 200 : writeReadCount
    let trimEntries = quick ? 2_000 : trimEntries
    return [
      Comparison(
        name: "persistence.diskCache.writeRead64K", unit: "ms", better: .lower, target: nil,
        keel: { try keelWriteRead(count: count) },
        peer: { try peerWriteRead(count: count) }),
      Comparison(
        name: "persistence.diskCache.trim10K", unit: "ms", better: .lower, target: nil, rounds: (3, 5),
        keel: { try keelTrim(entries: trimEntries) },
        peer: { try peerTrim(entries: trimEntries) }),
    ]
  }

  // MARK: - Write and read

  private static let payload = Data((0..<(64 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) })

  /// `count` stores of 64 KiB then `count` reads, and a final index write (the rest of the index writes happen in the
  /// background during the run), in ms. Each read is checked.
  private static func keelWriteRead(count: Int) throws -> Double {
    let directory = temporaryDirectory("keel")
    defer { try? FileManager.default.removeItem(at: directory) }
    let cache = try DiskCache(directory: directory, sizeLimit: 1 << 30)
    defer { try? cache.close() }
    let clock = ContinuousClock()
    let start = clock.now
    for index in 0..<count { try cache.store(payload, forKey: "https://example.com/image/\(index).png") }
    for index in 0..<count {
      guard try cache.data(forKey: "https://example.com/image/\(index).png")?.count == payload.count else {
        throw BenchmarkError(description: "keel: entry \(index) did not read back")
      }
    }
    try cache.flush()
    return nanoseconds(start.duration(to: clock.now)) / 1e6
  }

  /// The naive disk cache: a file per key named by its percent-encoded key, `Data.write(to:options: .atomic)` and
  /// `Data(contentsOf:)`; no index, no checksum, no size accounting.
  ///
  /// On Linux, swift-foundation's atomic write calls `fsync` before its rename (seen with strace, Swift 6.3.1), and
  /// that sync is most of this row's difference: Keel renames without syncing, because surviving `kill -9` needs no
  /// sync and a file a power loss damages fails its checksum and is a miss. Without the sync the two are close.
  private static func peerWriteRead(count: Int) throws -> Double {
    let directory = temporaryDirectory("peer")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    func url(_ index: Int) -> URL {
      let key = "https://example.com/image/\(index).png"
      return directory.appendingPathComponent(key.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
    }
    let clock = ContinuousClock()
    let start = clock.now
    for index in 0..<count { try payload.write(to: url(index), options: .atomic) }
    for index in 0..<count {
      guard (try? Data(contentsOf: url(index)))?.count == payload.count else {
        throw BenchmarkError(description: "peer: entry \(index) did not read back")
      }
    }
    return nanoseconds(start.duration(to: clock.now)) / 1e6
  }

  // MARK: - Trim

  /// 1 KiB entries; the trim limit leaves room for 90% of them, so a trim to 80% of it removes 28%.
  private static let smallPayload = Data(repeating: 0x5A, count: 1_024)

  /// `trim()` of a cache of `entries` entries reopened with a limit it exceeds, and the index write that records the
  /// removals, in ms. Filling the cache and reopening it are not measured.
  private static func keelTrim(entries: Int) throws -> Double {
    let directory = temporaryDirectory("keel-trim")
    defer { try? FileManager.default.removeItem(at: directory) }
    let filling = try DiskCache(directory: directory, sizeLimit: 1 << 30)
    for index in 0..<entries { try filling.store(smallPayload, forKey: "entry-\(index)") }
    let entrySize = filling.totalSize / entries
    try filling.close()
    let limit = entries * entrySize * 9 / 10
    let cache = try DiskCache(directory: directory, sizeLimit: limit)
    defer { try? cache.close() }
    let clock = ContinuousClock()
    let start = clock.now
    try cache.trim()
    try cache.flush()
    let elapsed = nanoseconds(start.duration(to: clock.now)) / 1e6
    guard cache.totalSize <= limit * 8 / 10, cache.count > 0 else {
      throw BenchmarkError(description: "keel: the trim left \(cache.totalSize) bytes for a limit of \(limit)")
    }
    return elapsed
  }

  /// The directory-listing trim of Kingfisher and SDWebImage: list the directory with each file's size and
  /// modification date, and if the total is over the limit, delete the oldest files until it is under the target.
  ///
  /// On Linux, swift-foundation fetches those properties with an `lstat` per file and also looks up the owner and
  /// group names, reading `/etc/passwd` and `/etc/group` for every file (strace, Swift 6.3.1): much of this row's
  /// difference. Keel's trim reads no file metadata at all, only its index; on Apple platforms the gap is smaller.
  private static func peerTrim(entries: Int) throws -> Double {
    let directory = temporaryDirectory("peer-trim")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    // Not `.atomic`: on Linux that syncs every file, and filling is not what is measured.
    for index in 0..<entries { try smallPayload.write(to: directory.appendingPathComponent("entry-\(index)")) }
    let limit = entries * smallPayload.count * 9 / 10
    let clock = ContinuousClock()
    let start = clock.now
    let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey, .contentModificationDateKey]
    let urls = try FileManager.default.contentsOfDirectory(
      at: directory, includingPropertiesForKeys: keys, options: .skipsHiddenFiles)
    var files: [(url: URL, size: Int, date: Date)] = []
    var total = 0
    for url in urls {
      let values = try url.resourceValues(forKeys: Set(keys))
      guard values.isRegularFile == true else { continue }
      let size = values.fileSize ?? 0
      files.append((url, size, values.contentModificationDate ?? .distantPast))
      total += size
    }
    if total > limit {
      for file in files.sorted(by: { $0.date < $1.date }) where total > limit * 8 / 10 {
        try FileManager.default.removeItem(at: file.url)
        total -= file.size
      }
    }
    let elapsed = nanoseconds(start.duration(to: clock.now)) / 1e6
    guard total <= limit * 8 / 10 else { throw BenchmarkError(description: "peer: the trim left \(total) bytes") }
    return elapsed
  }

  private static func temporaryDirectory(_ label: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("keel-bench-diskcache-\(label)-\(UUID().uuidString)")
  }
}
