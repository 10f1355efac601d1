import Foundation
import GRDB

/// A store in one SQLite file through a GRDB pool (the durable queue, the chat store): its transactions, with every
/// failure a ``PersistenceError`` that names the store and the file (but `CancellationError`, which stays Swift's).
package protocol SQLiteStore: Sendable {
  /// The database file.
  var url: URL { get }
  /// The pool every transaction goes through.
  var pool: DatabasePool { get }
  /// What the store is called in its errors: `durable queue`, `chat store`.
  static var storeName: String { get }
}

extension SQLiteStore {
  /// Runs `updates` in a write transaction, with every failure a ``PersistenceError`` (but `CancellationError`).
  package func write<T: Sendable>(_ operation: String, _ updates: @Sendable (Database) throws -> T) async throws -> T {
    do {
      return try await pool.writeWithoutTransaction { db in try Self.transaction(db, updates) }
    } catch {
      throw mapped(error, while: operation)
    }
  }

  /// Runs `updates` in a write transaction on the calling thread, as ``write(_:_:)`` does, but blocking it instead of
  /// suspending: for a write on the way to the screen, in a store that commits to the write-ahead log without an
  /// `fsync`, whose transaction takes less than the hop to the writer's queue and back. It blocks for as long as
  /// another write holds the writer, too; a long write (a page of a catch-up, an eviction) is for ``write(_:_:)``.
  package func writeNow<T>(_ operation: String, _ updates: (Database) throws -> T) throws -> T {
    do {
      return try pool.writeWithoutTransaction { db in try Self.transaction(db, updates) }
    } catch {
      throw mapped(error, while: operation)
    }
  }

  /// Runs `updates` in an immediate transaction on the writer's connection `db`, committed when it returns and rolled
  /// back when it throws: what GRDB's `write` does, with `BEGIN` and `COMMIT` as cached statements, where `write`
  /// compiles both again for every transaction (through its authorizer), which cost more than a one-row write itself.
  package static func transaction<T>(_ db: Database, _ updates: (Database) throws -> T) throws -> T {
    try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
    do {
      let result = try updates(db)
      try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
      return result
    } catch {
      if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
      throw error
    }
  }

  /// Runs `value` in a read transaction, with every failure a ``PersistenceError`` (but `CancellationError`).
  package func read<T: Sendable>(_ operation: String, _ value: @Sendable (Database) throws -> T) async throws -> T {
    do {
      return try await pool.read(value)
    } catch {
      throw mapped(error, while: operation)
    }
  }

  /// Runs `value` in a read transaction on the calling thread, as ``read(_:_:)`` does, but blocking it instead of
  /// suspending: in SQLite's write-ahead log a read never waits for a writer, so it blocks only for the read itself.
  package func readNow<T>(_ operation: String, _ value: (Database) throws -> T) throws -> T {
    do {
      return try pool.read(value)
    } catch {
      throw mapped(error, while: operation)
    }
  }

  private func mapped(_ error: any Error, while operation: String) -> any Error {
    switch error {
    case is PersistenceError, is CancellationError: error
    case let error as DatabaseError:
      PersistenceError.sqlite(error, while: operation, path: url.path, in: Self.storeName)
    default: PersistenceError.wrapping(error, while: operation, path: url.path)
    }
  }
}
