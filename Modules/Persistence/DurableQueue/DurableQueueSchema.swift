import GRDB

/// The tables of a ``DurableQueue`` database, created and evolved by a `DatabaseMigrator`: each migration runs in one
/// transaction, so a process killed while the schema is being created leaves either no schema or all of it.
enum DurableQueueSchema {
  /// The counters kept in the `meta` table.
  enum Counter: String, CaseIterable {
    /// Rows in `queue`, maintained by triggers so that a capacity check costs O(1) at any size.
    case pending
    case dropped
    case rejected
    case deadLettersDropped
  }

  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      // AUTOINCREMENT: an id is never reused, even once every row is deleted, so ids order elements FIFO for the
      // life of the file and an acknowledgement that arrives late can never delete a newer element.
      // `notBefore` 0 means "never released": an element is deliverable at once whatever the wall clock says.
      try db.execute(
        sql: """
          CREATE TABLE queue (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            payload BLOB NOT NULL,
            enqueuedAt REAL NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            notBefore REAL NOT NULL DEFAULT 0
          );
          CREATE INDEX queue_notBefore ON queue(notBefore);
          CREATE TABLE deadLetter (
            id INTEGER PRIMARY KEY,
            payload BLOB NOT NULL,
            enqueuedAt REAL NOT NULL,
            attempts INTEGER NOT NULL,
            reason TEXT NOT NULL,
            deadLetteredAt REAL NOT NULL
          );
          CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID;
          CREATE TRIGGER queue_counted_insert AFTER INSERT ON queue
            BEGIN UPDATE meta SET value = value + 1 WHERE key = 'pending'; END;
          CREATE TRIGGER queue_counted_delete AFTER DELETE ON queue
            BEGIN UPDATE meta SET value = value - 1 WHERE key = 'pending'; END;
          """)
      for counter in Counter.allCases {
        try db.execute(sql: "INSERT INTO meta (key, value) VALUES (?, 0)", arguments: [counter.rawValue])
      }
    }
    return migrator
  }

  /// Cached statements: an enqueue reads a counter in every transaction, and compiling its SQL each time cost more
  /// than running it.
  static func value(of counter: Counter, _ db: Database) throws -> Int {
    let statement = try db.cachedStatement(sql: "SELECT value FROM meta WHERE key = ?")
    return try Int.fetchOne(statement, arguments: [counter.rawValue]) ?? 0
  }

  static func add(_ amount: Int, to counter: Counter, _ db: Database) throws {
    try db.cachedStatement(sql: "UPDATE meta SET value = value + ? WHERE key = ?")
      .execute(arguments: [amount, counter.rawValue])
  }
}
