import Foundation
import GRDB

/// The index a ``DiskCache`` keeps beside its entries: one SQLite table (via GRDB) of each entry's size, last access,
/// expiry and access order, and whether the cache was closed cleanly.
///
/// Loaded whole at start-up (a single query; no directory listing) and written in batches of changed rows, off the
/// read and write paths. SQLite's journal makes every batch all or nothing, so a crash leaves the index as of its
/// last batch: complete but stale. The `clean` flag says which: it is cleared when a cache opens and set only when
/// it closes with everything written, so the next open knows whether the directory may hold entries the index lost.
final class DiskCacheIndex: Sendable {
  /// The database file.
  let path: String
  /// Whether the file at `path` was damaged and has been replaced by an empty index.
  let recreated: Bool
  private let queue: DatabaseQueue

  /// Opens (or creates) the index at `path`. A file that is not a database, or a damaged one, is deleted and
  /// replaced by an empty index: the cache's entries are rediscovered from the directory, so nothing is lost but
  /// access order. ``recreated`` says when that happened.
  init(path: String) throws {
    self.path = path
    do {
      queue = try Self.open(path)
      recreated = false
    } catch let error as DatabaseError where Self.isCorruption(error) {
      for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
      queue = try Self.wrap("recreate the disk cache index", path: path) { try Self.open(path) }
      recreated = true
    } catch {
      throw Self.persistenceError(error, while: "open the disk cache index", path: path)
    }
  }

  private static func open(_ path: String) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.label = "Keel.DiskCacheIndex"
    configuration.prepareDatabase { db in
      // WAL with NORMAL sync: a batch costs one append, and a killed process loses nothing committed.
      try db.execute(sql: "PRAGMA journal_mode = WAL")
      try db.execute(sql: "PRAGMA synchronous = NORMAL")
    }
    try OwnerOnlyFile.prepare(URL(fileURLWithPath: path))
    let queue = try DatabaseQueue(path: path, configuration: configuration)
    try queue.write { db in
      try db.execute(
        sql: """
          CREATE TABLE IF NOT EXISTS entry (
            name TEXT PRIMARY KEY NOT NULL, size INTEGER NOT NULL, accessed REAL NOT NULL, expires REAL,
            sequence INTEGER NOT NULL
          ) WITHOUT ROWID;
          CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID;
          """)
      // Touch the tables so that a file that is not a database fails here, inside the corruption handling.
      _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM meta")
    }
    return queue
  }

  /// Every record, and whether the cache was closed cleanly last time; then marks the index not clean until
  /// ``write(_:markClean:)`` says otherwise. Versions are numbered from 1 in load order.
  func load() throws -> (records: [String: DiskCacheRecord], wasClean: Bool) {
    try Self.wrap("read the disk cache index", path: path) {
      try queue.write { db in
        var records: [String: DiskCacheRecord] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT name, size, accessed, expires, sequence FROM entry")
        var version: UInt64 = 0
        while let row = try rows.next() {
          version += 1
          let expires: Double? = row[3]
          records[row[0]] = DiskCacheRecord(
            size: row[1], accessed: Date(timeIntervalSince1970: row[2]),
            expires: expires.map(Date.init(timeIntervalSince1970:)), sequence: UInt64(row[4] as Int64),
            version: version)
        }
        let clean = try Int.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'clean'") == 1
        try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('clean', 0)")
        return (records, clean)
      }
    }
  }

  /// Writes `changes` in one transaction: a record replaces the row of its name, `nil` deletes it. `prepare` runs
  /// first, inside the transaction (so batches are written in the order they were taken), and returns the changes
  /// and whether to mark the index clean.
  func write(_ prepare: () -> (changes: [(String, DiskCacheRecord?)], markClean: Bool)) throws {
    try Self.wrap("write the disk cache index", path: path) {
      try queue.write { db in
        let (changes, markClean) = prepare()
        let upsert = try db.cachedStatement(
          sql: "INSERT OR REPLACE INTO entry (name, size, accessed, expires, sequence) VALUES (?, ?, ?, ?, ?)")
        let delete = try db.cachedStatement(sql: "DELETE FROM entry WHERE name = ?")
        for (name, record) in changes {
          if let record {
            try upsert.execute(arguments: [
              name, record.size, record.accessed.timeIntervalSince1970, record.expires?.timeIntervalSince1970,
              Int64(record.sequence),
            ])
          } else {
            try delete.execute(arguments: [name])
          }
        }
        if markClean { try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('clean', 1)") }
      }
    }
  }

  /// Closes the database: SQLite folds its write-ahead log back into the file and deletes it, so that when this
  /// returns the directory holds only the index file and the entries. Later writes throw.
  func close() throws {
    try Self.wrap("close the disk cache index", path: path) { try queue.close() }
  }

  // MARK: - Errors

  private static func isCorruption(_ error: DatabaseError) -> Bool {
    [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode)
  }

  private static func wrap<T>(_ operation: String, path: String, _ body: () throws -> T) throws -> T {
    do { return try body() } catch { throw persistenceError(error, while: operation, path: path) }
  }

  /// A SQLite failure as a ``PersistenceError``: a full disk, a refused permission and a damaged file each have
  /// their kind.
  static func persistenceError(_ error: any Error, while operation: String, path: String) -> PersistenceError {
    guard let error = error as? DatabaseError else { return .wrapping(error, while: operation, path: path) }
    let kind: PersistenceError.Kind =
      switch error.resultCode {
      case .SQLITE_FULL: .diskFull
      case .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_AUTH: .permissionDenied
      case .SQLITE_CORRUPT, .SQLITE_NOTADB: .corrupted
      default: .io
      }
    return PersistenceError(
      kind, "Could not \(operation) at \(path): \(error.message ?? "\(error.resultCode)").", path: path,
      underlying: error)
  }
}
