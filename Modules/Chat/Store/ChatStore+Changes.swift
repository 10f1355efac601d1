import GRDB
import Persistence

extension ChatStore {
  /// A signal after each committed write that changed what a list shows (workspaces, conversations, members or
  /// messages), from the moment of the call until the stream is dropped. At most one signal waits: a burst of writes
  /// is read once.
  func changes() -> AsyncStream<Void> {
    let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let observation = DatabaseRegionObservation(
      tracking: Table("workspace"), Table("conversation"), Table("member"), Table("message"))
    let cancellable = observation.start(
      in: pool, onError: { _ in continuation.finish() }, onChange: { _ in continuation.yield() })
    continuation.onTermination = { _ in cancellable.cancel() }
    return stream
  }
}

extension ChatStore {
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
}
