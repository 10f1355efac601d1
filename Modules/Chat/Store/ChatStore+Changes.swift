import GRDB
import Persistence

extension ChatStore {
  /// A signal after each committed write that changed what a list shows (workspaces, conversations, members or
  /// messages), from the moment the call returns until the stream is dropped. At most one signal waits: a burst of
  /// writes is read once.
  ///
  /// The observation starts on the database's writer, awaited rather than blocking a thread while a long write (a
  /// busy file, a vacuum) holds it.
  func changes() async throws -> AsyncStream<Void> {
    let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let observation = DatabaseRegionObservation(tracking: Self.listTables + [Table("message")])
    let pool = pool
    let cancellable = try await pool.writeWithoutTransaction { _ in
      // On the writer already: the observation starts at once.
      observation.start(in: pool, onError: { _ in continuation.finish() }, onChange: { _ in continuation.yield() })
    }
    continuation.onTermination = { _ in cancellable.cancel() }
    return stream
  }

  /// The tables whose changes SQLite does not report (they have no rowid), which ``writeLists(_:_:)`` reports.
  private static let listTables = [Table("workspace"), Table("conversation"), Table("member")]

  /// A write of what the lists show: SQLite reports no change to a table without a rowid, so the write reports it
  /// itself, and ``changes()`` hears of it.
  func writeLists<T: Sendable>(_ operation: String, _ updates: @Sendable (Database) throws -> T) async throws -> T {
    try await write(operation) { db in
      let result = try updates(db)
      for table in Self.listTables { try db.notifyChanges(in: table) }
      return result
    }
  }

  /// As ``writeLists(_:_:)``, unless `current` says no inside the transaction (a push changed the lists since the
  /// answer being written was asked for, so it may be older than what the push wrote): then nothing is written and it
  /// returns `false`.
  func writeLists(
    _ operation: String, ifCurrent current: @Sendable () -> Bool, _ updates: @Sendable (Database) throws -> Void
  ) async throws -> Bool {
    try await writeLists(operation) { db in
      guard current() else { return false }
      try updates(db)
      return true
    }
  }
}
