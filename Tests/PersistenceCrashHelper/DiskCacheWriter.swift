import Foundation
import Persistence

/// Writes DiskCache entries until killed (the DiskCache crash test).
///
/// `PersistenceCrashHelper disk-cache <directory> <first generation>` opens a cache in the directory and writes 1 to
/// 4 MiB entries to sixteen keys in turn, each generation's payload different, and prints `key generation` on
/// standard output, flushed, once each `store` has returned: a write the test may expect to read back.
enum DiskCacheWriter {
  static func run(_ arguments: [String]) async throws {
    guard arguments.count == 2, let firstGeneration = Int(arguments[1]) else {
      FileHandle.standardError.write(Data("usage: PersistenceCrashHelper disk-cache <directory> <generation>\n".utf8))
      exit(64)
    }
    let cache = try DiskCache(directory: URL(fileURLWithPath: arguments[0]), sizeLimit: 1 << 30)
    var generation = firstGeneration
    while true {
      let key = "entry-\(generation % 16)"
      try cache.store(payload(key: key, generation: generation), forKey: key)
      FileHandle.standardOutput.write(Data("\(key) \(generation)\n".utf8))
      generation += 1
    }
  }

  /// A copy of `DiskCacheCrashSupport.payload(key:generation:)` in Tests/PersistenceTests/Support; the two must
  /// agree.
  static func payload(key: String, generation: Int) -> Data {
    let firstLine = Array("\(key) \(generation)\n".utf8)
    var state = UInt64(truncatingIfNeeded: generation) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(key.utf8.count)
    for byte in key.utf8 { state = (state ^ UInt64(byte)) &* 0x100_0000_01B3 }
    // 4 KiB blocks of a pseudo-random pattern, each stamped with its number: cheap to make even in a debug build.
    var block = [UInt8](repeating: 0, count: 4_096)
    var word = state
    block.withUnsafeMutableBytes { bytes in
      for offset in stride(from: 0, to: bytes.count, by: 8) {
        word = word &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes.storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
      }
    }
    let blocks = 256 + Int(state % 768)
    var data = Data(capacity: firstLine.count + blocks * block.count)
    data.append(contentsOf: firstLine)
    for index in 0..<blocks {
      withUnsafeBytes(of: (UInt64(index) ^ state).littleEndian) { block.replaceSubrange(0..<8, with: $0) }
      data.append(contentsOf: block)
    }
    return data
  }
}
