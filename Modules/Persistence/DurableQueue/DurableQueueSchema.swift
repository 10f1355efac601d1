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
    /// The id the next element gets (v2): one more than any id the file has given, so none is ever reused.
    case nextId
  }

  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      // An id is never reused, even once every row is deleted, so ids order elements FIFO for the life of the file
      // and an acknowledgement that arrives late can never delete a newer element: AUTOINCREMENT here, `nextId` since
      // v2.
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
      for counter in [Counter.pending, .dropped, .rejected, .deadLettersDropped] {
        try db.execute(sql: "INSERT INTO meta (key, value) VALUES (?, 0)", arguments: [counter.rawValue])
      }
    }
    // v2: two pages a transaction instead of four, for the crash-safe level's microsecond enqueue (Decision 0017).
    // The next id lives in `meta`, on the page the `pending` counter already writes, instead of `sqlite_sequence`'s
    // page; it starts above every id v1 gave (its sequence, and the ids still in either table), so none is reused.
    // The `notBefore` index holds only elements released for a retry: a new element (`notBefore` 0) no longer
    // writes an index page. The table is rebuilt because SQLite cannot drop AUTOINCREMENT in place; dropping the
    // old one fires no trigger, so the counters stay as they were.
    migrator.registerMigration("v2-two-pages") { db in
      try db.execute(
        sql: """
          CREATE TABLE queue_v2 (
            id INTEGER PRIMARY KEY,
            payload BLOB NOT NULL,
            enqueuedAt REAL NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            notBefore REAL NOT NULL DEFAULT 0
          );
          INSERT INTO queue_v2 (id, payload, enqueuedAt, attempts, notBefore)
            SELECT id, payload, enqueuedAt, attempts, notBefore FROM queue ORDER BY id;
          INSERT INTO meta (key, value) VALUES ('nextId', 1 + MAX(
            COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'queue'), 0),
            COALESCE((SELECT MAX(id) FROM queue), 0),
            COALESCE((SELECT MAX(id) FROM deadLetter), 0)));
          DROP TABLE queue;
          ALTER TABLE queue_v2 RENAME TO queue;
          CREATE INDEX queue_released ON queue(notBefore) WHERE notBefore != 0;
          CREATE TRIGGER queue_counted_insert AFTER INSERT ON queue
            BEGIN UPDATE meta SET value = value + 1 WHERE key = 'pending'; END;
          CREATE TRIGGER queue_counted_delete AFTER DELETE ON queue
            BEGIN UPDATE meta SET value = value - 1 WHERE key = 'pending'; END;
          """)
    }
    return migrator
  }

  /// Cached statements: an enqueue reads a counter in every transaction, and compiling its SQL each time cost more
  /// than running it.
  static func value(of counter: Counter, _ db: Database) throws -> Int {
    let statement = try db.cachedStatement(sql: "SELECT value FROM meta WHERE key = ?")
    return try Int.fetchOne(statement, arguments: [counter.rawValue]) ?? 0
  }

  /// Sets `counter` to `value`.
  static func set(_ counter: Counter, to value: Int64, _ db: Database) throws {
    try db.cachedStatement(sql: "UPDATE meta SET value = ? WHERE key = ?").execute(arguments: [value, counter.rawValue])
  }

  static func add(_ amount: Int, to counter: Counter, _ db: Database) throws {
    try db.cachedStatement(sql: "UPDATE meta SET value = value + ? WHERE key = ?")
      .execute(arguments: [amount, counter.rawValue])
  }
}
