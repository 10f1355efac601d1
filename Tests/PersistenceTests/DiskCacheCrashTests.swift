import Clocks
import CrashFixtures
import Foundation
import Persistence
import TestSupport
import Testing

/// REQUIREMENTS A8: a writer killed mid-write never leaves a readable partial entry. A child process writes 1 to
/// 4 MiB entries in a loop and is killed with SIGKILL at a random moment, several times over the same directory.
@Suite("DiskCache crash", .timeLimit(.minutes(10)))
struct DiskCacheCrashTests {
  let directory = DiskCacheTestDirectory()
  static let keys = (0..<16).map { "entry-\($0)" }

  @Test("After kill -9, every entry that reads back is complete and right, and every reported write reads back")
  func killedWriter() async throws {
    defer { directory.remove() }
    var reported: [String: Int] = [:]  // key → the latest generation the child said it had stored
    for round in 0..<5 {
      // GIVEN a child writing entries, WHEN it is killed at a random moment after its first write
      let run = try await ChildProcess.run(
        DiskCacheCrashSupport.helper, arguments: ["disk-cache", directory.url.path, String(round * 1_000_000)],
        killAfter: .seconds(30), killAfterLines: (count: 1, thenMicroseconds: UInt32.random(in: 0...250_000)))
      #expect(!run.lines.isEmpty, "the child wrote an entry")
      #expect(run.killed)
      for line in run.lines {
        let parts = line.split(separator: " ")
        guard parts.count == 2, let generation = Int(parts[1]) else { continue }
        let key = String(parts[0])
        reported[key] = max(reported[key] ?? generation, generation)
      }

      // THEN each entry reads back whole, and at least as new as the last write reported
      let cache = try DiskCache(directory: directory.url, sizeLimit: 1 << 30, clock: TestClock())
      var readable = 0
      for key in Self.keys {
        guard let data = try cache.data(forKey: key) else {
          #expect(reported[key] == nil, "round \(round): \(key) was reported stored but does not read back")
          continue
        }
        readable += 1
        let header = try #require(DiskCacheCrashSupport.header(of: data), "round \(round): \(key) has no header")
        #expect(header.key == key)
        #expect(data == CrashFixtures.diskCachePayload(key: key, generation: header.generation), "\(key) is whole")
        #expect(header.generation >= reported[key] ?? 0, "round \(round): \(key) is older than reported")
      }
      // and the leftovers of the killed write are cleared by the pass that follows an unclean shutdown
      try cache.reconcile()
      #expect(cache.count == readable)
      #expect(try directory.fileNames().allSatisfy { !$0.hasPrefix(".tmp-") })
      try cache.close()
    }
  }
}
