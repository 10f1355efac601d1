import Foundation
import GRDB
import Persistence

extension ChatStore {
  /// Forgets everything the server gave: workspaces, conversations, members, read pointers, sync points and sent
  /// messages. Pending and failed messages stay, for their sender to see and send on their next sign-in. The file is
  /// then compacted (`VACUUM`, and the write-ahead log emptied), so that what was forgotten does not linger in free
  /// pages or old log frames; a compaction that fails (the disk is full) leaves them until the next.
  ///
  /// - Returns: How many pending and failed messages stay.
  @discardableResult
  public func forgetAllButUnsent() async throws -> Int {
    let unsent = try await write("forget the account's chat") { db in
      for table in ["workspace", "conversation", "member", "sync"] { try db.execute(sql: "DELETE FROM \(table)") }
      try db.execute(sql: "DELETE FROM message WHERE state = 'sent'")
      return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message") ?? 0
    }
    try? await pool.writeWithoutTransaction { db in
      try db.execute(sql: "VACUUM")
      try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
    }
    return unsent
  }
}
