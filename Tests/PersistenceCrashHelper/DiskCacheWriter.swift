import CrashFixtures
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
      try cache.store(CrashFixtures.diskCachePayload(key: key, generation: generation), forKey: key)
      FileHandle.standardOutput.write(Data("\(key) \(generation)\n".utf8))
      generation += 1
    }
  }
}
