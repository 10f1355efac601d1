import Clocks
import Foundation

/// A fresh directory under the temporary directory for one disk cache test; ``remove()`` deletes it.
struct DiskCacheTestDirectory {
  /// The parent, which holds only ``url``: a test can check that nothing was written beside it.
  let root = FileManager.default.temporaryDirectory.appendingPathComponent("keel-diskcache-\(UUID().uuidString)")
  /// The cache directory.
  var url: URL { root.appendingPathComponent("cache") }

  /// The file names in the cache directory, sorted.
  func fileNames() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
  }

  /// The entry files' names (64 hex digits).
  func entryFileNames() throws -> [String] {
    try fileNames().filter { $0.count == 64 }
  }

  /// Deletes the directory and everything in it.
  func remove() {
    try? FileManager.default.removeItem(at: root)
  }
}

extension TestClock where Duration == Swift.Duration {
  /// A wall clock that moves with this test clock: 2025-01-01 plus the time the test clock has advanced.
  func wallClock() -> @Sendable () -> Date {
    let start = now
    let epoch = Date(timeIntervalSince1970: 1_735_689_600)
    return { [self] in
      let (seconds, attoseconds) = start.duration(to: now).components
      return epoch.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }
  }
}
