import Foundation
import GRDB
import Persistence

extension ChatStore {
  /// Records that the user viewed `conversationID` at `date`: eviction keeps the conversations viewed last.
  public func touch(_ conversationID: String, at date: Date = Date()) async throws {
    try await write("record a view") { db in
      try db.execute(
        sql: "UPDATE conversation SET lastViewedAt = ? WHERE id = ?",
        arguments: [Self.milliseconds(date), conversationID])
    }
  }

  /// The bytes the store's data takes: its pages in use (free pages, left by deletions, are reused and not counted).
  public func size() async throws -> Int64 {
    try await read("measure the store") { db in try Self.usedBytes(db) }
  }

  /// While the store is over ``maxSize``, deletes the sent messages of the conversation viewed least recently (one
  /// never viewed first); once only one conversation has sent messages left, its oldest half, until the store fits.
  /// Pending and failed messages stay. Space is counted in whole pages, so it may delete more than the excess.
  ///
  /// - Returns: The conversations whose messages were deleted, in that order.
  @discardableResult
  public func evictIfNeeded() async throws -> [String] {
    let maxSize = maxSize
    return try await write("evict conversations") { db in
      var evicted: [String] = []
      while try Self.usedBytes(db) > maxSize {
        let candidates = try String.fetchAll(
          db,
          sql: """
            SELECT m.conversationID FROM message m LEFT JOIN conversation c ON c.id = m.conversationID
            WHERE m.state = 'sent' GROUP BY m.conversationID ORDER BY COALESCE(MAX(c.lastViewedAt), 0), m.conversationID
            LIMIT 2
            """)
        guard let oldest = candidates.first else { break }
        if candidates.count > 1 {
          try db.execute(
            sql: "DELETE FROM message WHERE conversationID = ? AND state = 'sent'", arguments: [oldest])
          try db.execute(sql: "DELETE FROM sync WHERE conversationID = ?", arguments: [oldest])
        } else {
          let count =
            try Int.fetchOne(
              db, sql: "SELECT COUNT(*) FROM message WHERE conversationID = ? AND state = 'sent'", arguments: [oldest])
            ?? 0
          try db.execute(
            sql: """
              DELETE FROM message WHERE rowid IN (SELECT rowid FROM message WHERE conversationID = ? AND state = 'sent'
                ORDER BY createdAt, sortKey LIMIT ?)
              """, arguments: [oldest, max(1, count / 2)])
        }
        if evicted.last != oldest { evicted.append(oldest) }
      }
      return evicted
    }
  }

  private static func usedBytes(_ db: Database) throws -> Int64 {
    let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
    let free = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
    let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4_096
    return (pages - free) * pageSize
  }
}
