import Foundation
import GRDB
import Persistence
import Testing

/// The write-ahead log is checkpointed beside the writer, not in the commit that takes it past the threshold; a log
/// the checkpoint beside cannot shrink is still bounded by the commit's own.
@Suite("WALCheckpointer")
struct WALCheckpointerTests {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-checkpoint-\(UUID().uuidString)")

  /// A pool on a new file in the test's directory, with a table of blobs, checkpointing through `checkpointer`.
  func pool(_ checkpointer: WALCheckpointer) throws -> (DatabasePool, URL) {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent("store.sqlite")
    let pool = try WALCheckpointer.pool(path: url.path, Configuration(), checkpointer: checkpointer)
    try pool.write { try $0.execute(sql: "CREATE TABLE blob (id INTEGER PRIMARY KEY, data BLOB NOT NULL)") }
    return (pool, url)
  }

  /// Commits `count` transactions of one 6,000-byte row each: two pages of log apiece.
  func insert(_ count: Int, into pool: DatabasePool) throws {
    for _ in 0..<count {
      try pool.write { try $0.execute(sql: "INSERT INTO blob (data) VALUES (?)", arguments: [Data(count: 6_000)]) }
    }
  }

  /// Commits `count` such transactions, each after the checkpoints the one before it asked for have run.
  func insertWaiting(_ count: Int, into pool: DatabasePool, _ checkpointer: WALCheckpointer) throws {
    for _ in 0..<count {
      try insert(1, into: pool)
      checkpointer.waitForCheckpointsAsked()
    }
  }

  func size(_ url: URL) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
  }

  @Test("Past the threshold the log is copied into the file beside the writer, and the writer starts it again")
  func checkpointsBesideTheWriter() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    // GIVEN a store whose checkpoints come past 40 pages of log, and in the commit past 400
    let checkpointer = WALCheckpointer(threshold: 40, limit: 400)
    let (pool, url) = try pool(checkpointer)
    let log = URL(fileURLWithPath: url.path + "-wal")
    try insert(10, into: pool)
    checkpointer.waitForCheckpointsAsked()
    let before = size(url)
    #expect(checkpointer.counts.beside == 0 && checkpointer.counts.inline == 0, "below the threshold: no checkpoint")

    // WHEN commits take the log past the threshold, each checkpoint it asks for running before the next commit (a
    // loaded machine can leave the checkpoint behind commits that follow at once, and the log then grows past it)
    try insertWaiting(15, into: pool, checkpointer)

    // THEN it was checkpointed beside, never in a commit: the rows are in the database file
    #expect(checkpointer.counts.beside >= 1)
    #expect(checkpointer.counts.inline == 0)
    #expect(size(url) > before + 15 * 6_000, "the checkpoint copied the log's rows into the database file")
    // AND the writer's next commits write the log again from its beginning: it stays within a commit or two of the
    // threshold (about three pages each), where 35 commits in one log would be over 80 pages
    try insertWaiting(10, into: pool, checkpointer)
    let bound = 32 + (40 + 8) * (24 + 4_096)  // the log's header, and frames of a page and its header each
    #expect(size(log) <= bound, "the log was written from its start, not grown: \(size(log)) bytes")
    #expect(try pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM blob") } == 35)
  }

  @Test("Commits with pauses between them, as a chat's are, never checkpoint in the commit")
  func pausedCommitsNeverCheckpointInline() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    // GIVEN a store whose checkpoints come past 40 pages of log, and in the commit past 100
    let checkpointer = WALCheckpointer(threshold: 40, limit: 100)
    let (pool, _) = try pool(checkpointer)

    // WHEN 400 pages are committed, ten transactions at a time with a pause after each ten
    for _ in 0..<20 {
      try insert(10, into: pool)
      checkpointer.waitForCheckpointsAsked()
    }

    // THEN every checkpoint ran beside the writer
    #expect(checkpointer.counts.beside >= 5)
    #expect(checkpointer.counts.inline == 0)
  }

  @Test("A log that a long read keeps from being copied is checkpointed in the commit past the limit")
  func commitCheckpointsPastTheLimit() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    // GIVEN a store whose checkpoints come past 40 pages of log, and in the commit past 100, and a reader that keeps
    // a read transaction open from the first rows on
    let checkpointer = WALCheckpointer(threshold: 40, limit: 100)
    let (pool, url) = try pool(checkpointer)
    try insert(5, into: pool)
    var unsafe = Configuration()
    unsafe.allowsUnsafeTransactions = true
    let reader = try DatabaseQueue(path: url.path, configuration: unsafe)
    try reader.inDatabase { db in
      try db.execute(sql: "BEGIN DEFERRED TRANSACTION")
      _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM blob")
    }

    // WHEN commits take the log past the limit
    try insert(60, into: pool)
    checkpointer.waitForCheckpointsAsked()

    // THEN the commits past it checkpointed themselves, as SQLite's own automatic checkpoint would
    #expect(checkpointer.counts.beside >= 1, "the checkpoint beside was asked for, and could not shrink the log")
    #expect(checkpointer.counts.inline >= 1)
    // AND once the read ends, a checkpoint beside copies the whole log, and the commits stop checkpointing themselves
    try reader.inDatabase { try $0.execute(sql: "COMMIT") }
    try insert(1, into: pool)
    checkpointer.waitForCheckpointsAsked()
    let inline = checkpointer.counts.inline
    for _ in 0..<10 {
      try insert(10, into: pool)
      checkpointer.waitForCheckpointsAsked()
    }
    #expect(checkpointer.counts.inline == inline)
  }
}
