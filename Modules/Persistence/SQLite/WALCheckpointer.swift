import Foundation
import GRDB
import GRDBSQLite
import KeelConcurrency

/// Checkpoints a store's write-ahead log on a connection of its own, beside the writer instead of inside its commits.
///
/// SQLite's automatic checkpoint runs in the commit that takes the log past 1,000 pages: that commit copies the log
/// into the database and syncs both files before it returns, and in a chat, where one message writes about ten pages
/// to each store, every hundredth send waits for it. Here a commit only looks at the log's length: past `threshold`
/// pages, a passive checkpoint runs on the checkpointer's connection while the writer goes on (a passive checkpoint
/// takes no lock that a writer or a reader waits for), and the writer starts the log again at its next transaction.
/// Past `limit` pages (the one beside cannot keep up, or its connection is not open yet) the commit checkpoints
/// itself, as SQLite's own would: the log stays bounded either way.
///
/// Nothing is less durable for it: a committed transaction is as safe in the log as in the database file, and a
/// checkpoint cut short by a crash is done again from the log when the file is next opened.
package final class WALCheckpointer: Sendable {
  /// How many checkpoints ran, and where.
  package struct Counts: Sendable {
    /// Checkpoints on the checkpointer's connection, beside the writer.
    package var beside = 0
    /// Checkpoints inside a commit, the log being past `limit` pages.
    package var inline = 0
  }

  private struct State {
    var connection: DatabaseQueue?
    var scheduled = false
    var again = false
    var counts = Counts()
  }

  /// The log's length, in pages, past which a commit asks for a checkpoint beside it.
  let threshold: Int32
  /// The log's length, in pages, past which a commit checkpoints itself.
  let limit: Int32
  // A pthread mutex (`Locked`): ThreadSanitizer sees its ordering, where it does not see `Synchronization.Mutex`'s.
  private let state = Locked(State())

  /// A checkpointer that checkpoints beside the writer past `threshold` pages of log (SQLite's own automatic
  /// checkpoint is at 1,000) and in the commit past `limit`.
  package init(threshold: Int32 = 1_000, limit: Int32 = 4_000) {
    precondition(0 < threshold && threshold < limit, "A checkpoint beside the writer comes before one in the commit.")
    self.threshold = threshold
    self.limit = limit
  }

  /// Opens a pool on the file at `path` whose writer checkpoints through a new checkpointer, as ``watch(_:)`` and
  /// ``open(_:label:)`` say: what the durable queue and the chat store open.
  package static func pool(
    path: String, _ configuration: Configuration, checkpointer: WALCheckpointer = WALCheckpointer()
  ) throws -> DatabasePool {
    var configuration = configuration
    configuration.prepareDatabase { db in checkpointer.watch(db) }
    let pool = try DatabasePool(path: path, configuration: configuration)
    try checkpointer.open(path, label: (configuration.label ?? "Keel.SQLite") + ".checkpointer")
    return pool
  }

  /// Takes over the automatic checkpoint of the connection `db`, for a pool's `prepareDatabase`, whose closure holds
  /// the checkpointer as long as the pool holds the connection (the hook's context is this object, unretained). Only
  /// the writer commits; on a reader the hook never runs.
  package func watch(_ db: Database) {
    _ = sqlite3_wal_hook(db.sqliteConnection, afterCommit, Unmanaged.passUnretained(self).toOpaque())
  }

  /// Opens the connection the checkpoints beside the writer run on, to the file at `path`, once the pool has made it
  /// a WAL database; until then only the commit's own checkpoint runs.
  package func open(_ path: String, label: String) throws {
    var configuration = Configuration()
    configuration.label = label
    let connection = try DatabaseQueue(path: path, configuration: configuration)
    state.withLock { $0.connection = connection }
  }

  /// How many checkpoints ran so far.
  package var counts: Counts { state.withLock(\.counts) }

  /// Returns once the checkpoints beside the writer asked for so far have run: a commit asks before it returns.
  package func waitForCheckpointsAsked() {
    let connection = state.withLock(\.connection)
    connection?.inDatabase { _ in }
  }

  /// After a commit on `db`'s database `name` that left `pages` pages in its log.
  fileprivate func committed(_ db: OpaquePointer?, _ name: UnsafePointer<CChar>?, pages: Int32) {
    if pages >= limit {
      _ = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
      state.withLock { $0.counts.inline += 1 }
      return
    }
    guard pages >= threshold else { return }
    let connection = state.withLock { state -> DatabaseQueue? in
      guard let connection = state.connection else { return nil }
      if state.scheduled {
        state.again = true
        return nil
      }
      state.scheduled = true
      return connection
    }
    connection?.asyncWriteWithoutTransaction { db in
      // A checkpoint copies the log as far as it was when it began. One asked for while it ran (the writer went on)
      // runs right after it, so that the log's last commits are copied too and the writer can start it again.
      repeat {
        // A checkpoint already under way (a truncating one the store asked for, a commit's own) answers busy: the
        // next commit past the threshold asks again.
        _ = try? db.checkpoint(.passive)
      } while self.state.withLock { state in
        state.counts.beside += 1
        state.scheduled = state.again
        state.again = false
        return state.scheduled
      }
    }
  }
}

/// The write-ahead log hook: SQLite calls it after each commit, with the write lock already released.
private func afterCommit(
  _ context: UnsafeMutableRawPointer?, _ db: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ pages: Int32
) -> Int32 {
  if let context {
    Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(db, name, pages: pages)
  }
  return SQLITE_OK
}
