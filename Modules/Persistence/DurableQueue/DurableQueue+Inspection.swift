import Foundation
import GRDB

extension DurableQueue {
  /// The number of pending elements (released ones included; dead letters not).
  public func count() async throws -> Int {
    try await read("count pending elements") { db in try DurableQueueSchema.value(of: .pending, db) }
  }

  /// Pending and dead-letter counts and the overflow totals, read in one snapshot.
  public func statistics() async throws -> DurableQueueStatistics {
    try await read("read the statistics") { db in
      DurableQueueStatistics(
        pending: try DurableQueueSchema.value(of: .pending, db),
        deadLetters: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM deadLetter")!,
        dropped: try DurableQueueSchema.value(of: .dropped, db),
        rejected: try DurableQueueSchema.value(of: .rejected, db),
        deadLettersDropped: try DurableQueueSchema.value(of: .deadLettersDropped, db))
    }
  }

  /// Runs SQLite's `PRAGMA integrity_check` over the whole file: a full read, so for diagnostics and tests rather
  /// than for every launch.
  ///
  /// - Throws: ``PersistenceError`` of kind `PersistenceError.Kind.corrupted` listing the first problems found, or a
  ///   failure to read the file.
  public func integrityCheck() async throws {
    let problems = try await read("check the integrity of the database") { db in
      try String.fetchAll(db, sql: "PRAGMA integrity_check(10)")
    }
    guard problems == ["ok"] else {
      throw PersistenceError(
        .corrupted,
        "The durable queue at \(url.path) failed its integrity check: \(problems.joined(separator: "; ")).",
        path: url.path)
    }
  }

  /// The database's journal mode and synchronous setting, as SQLite names them (`wal`, and `2` for FULL): what the
  /// durability promise rests on, for diagnostics and tests.
  public func journalSettings() async throws -> (journalMode: String, synchronous: Int) {
    try await write("read the journal settings") { db in
      (
        try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "", try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
      )
    }
  }
}
