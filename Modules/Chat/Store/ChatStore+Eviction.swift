import Foundation
import GRDB
import KeelConcurrency
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
      // Measured on the writer: every write before this one is counted, and none after it has begun. A failed
      // eviction leaves the last measurement, so that the next write measures again.
      let used = try Self.usedBytes(db)
      growth.withLock { $0 = ChatStoreGrowth(measured: used, measuredAt: .now) }
      return evicted
    }
  }

  /// ``evictIfNeeded()`` after a write of `messages`, unless the store, as last measured, plus a generous bound of
  /// what those and the writes since may have added (``ChatStoreGrowth``), is still within ``maxSize``.
  func evictIfGrown(by messages: [Message]) async throws {
    guard grew(by: messages) else { return }
    try await evictAfterGrowth()
  }

  /// Counts a write of `messages` in what the store may have grown by since it was measured, and says whether
  /// ``evictAfterGrowth()`` is due: whether the store may now be past ``maxSize``, or has not been measured for long.
  func grew(by messages: [Message]) -> Bool {
    let added = messages.reduce(Int64(0)) { $0 + ChatStoreGrowth.bound(of: $1) }
    let maxSize = maxSize
    return growth.withLock { growth in
      growth.added += added
      growth.writes += 1
      return growth.mayExceed(maxSize, at: .now)
    }
  }

  /// ``evictIfNeeded()``, once ``grew(by:)`` has said it is due.
  func evictAfterGrowth() async throws {
    do {
      try await evictIfNeeded()
    } catch {
      // A failed eviction (its commit too) may have left a measurement it rolled back: the next write measures.
      growth.withLock { $0.measured = nil }
      throw error
    }
  }

  private static func usedBytes(_ db: Database) throws -> Int64 {
    let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
    let free = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
    let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4_096
    return (pages - free) * pageSize
  }
}

/// A chat store's size as last measured, and a bound of what it may have grown by since.
struct ChatStoreGrowth: Sendable {
  /// The bytes in use at the last measurement; `nil` before the first.
  var measured: Int64?
  /// When it was taken.
  var measuredAt = ContinuousClock.now
  /// The bound of the bytes the messages written since may take.
  var added: Int64 = 0
  /// Writes since the measurement: the size is measured again after every ``remeasureEvery`` of them, or
  /// ``remeasureAfter`` since, whatever the bound, for what it does not count (conversations, members, read
  /// positions, another process's writes to the same file).
  var writes = 0

  static let remeasureEvery = 256
  static let remeasureAfter = Duration.seconds(10)

  /// Whether the store may be over `maxSize`, or has not been measured for long.
  func mayExceed(_ maxSize: Int64, at now: ContinuousClock.Instant) -> Bool {
    guard let measured else { return true }
    return measured + added > maxSize || writes >= Self.remeasureEvery
      || measuredAt.duration(to: now) >= Self.remeasureAfter
  }

  /// A generous bound of the bytes `message` adds: its text three times (the row, the search index's content and its
  /// terms), what its JSON columns hold twice (with room for their punctuation), and a kilobyte for its ids, keys,
  /// indexes and a page split.
  static func bound(of message: Message) -> Int64 {
    func length(_ texts: [String]) -> Int { texts.reduce(0) { $0 + $1.utf8.count + 16 } }
    let text = message.text.utf8.count
    let images = length(message.images)
    let files = message.files.reduce(0) { $0 + length([$1.name, $1.url, $1.contentType]) + 64 }
    let reactions = message.reactions.reduce(0) { $0 + length([$1.emoji] + $1.userIDs) }
    let mentions = length(message.mentions)
    let ids = length([message.id ?? "", message.clientMessageID ?? "", message.conversationID, message.senderID])
    return Int64(3 * text + 2 * (images + files + reactions + mentions) + 2 * ids + 1_024)
  }
}
