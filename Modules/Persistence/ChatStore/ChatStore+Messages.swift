import Foundation
import GRDB

extension ChatStore {
  /// Stores `messages` in one transaction, each exactly once: one already stored (found by server id, else by client
  /// message id, as a pending message becomes sent) is updated in place; the rest are inserted. Then evicts
  /// conversations if the store is over ``maxSize``.
  ///
  /// - Returns: The messages that were new to the store, in the order given: what a screen has not shown yet.
  /// - Throws: ``PersistenceError``; nothing is written when it throws.
  @discardableResult
  public func upsert(_ messages: [Message]) async throws -> [Message] {
    guard !messages.isEmpty else { return [] }
    let inserted = try await write("store messages") { db in
      var inserted: [Message] = []
      for message in messages where try Self.upsert(message, db) { inserted.append(message) }
      return inserted
    }
    try await evictIfNeeded()
    return inserted
  }

  /// Upserts one message; returns whether it was new.
  private static func upsert(_ message: Message, _ db: Database) throws -> Bool {
    var rowID: Int64?
    if let id = message.id {
      rowID = try Int64.fetchOne(db, sql: "SELECT rowid FROM message WHERE serverID = ?", arguments: [id])
    }
    if rowID == nil, let clientID = message.clientMessageID {
      rowID = try Int64.fetchOne(db, sql: "SELECT rowid FROM message WHERE clientMessageID = ?", arguments: [clientID])
    }
    let images = String(decoding: try JSONEncoder().encode(message.images), as: UTF8.self)
    let position = message.position
    var arguments: StatementArguments = [
      message.id, message.clientMessageID, message.conversationID, message.senderID, message.text, images,
      milliseconds(position.createdAt), position.key, message.state.rawValue, message.failureReason,
    ]
    guard let rowID else {
      try db.execute(
        sql: """
          INSERT INTO message (serverID, clientMessageID, conversationID, senderID, text, images, createdAt, sortKey,
            state, failureReason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          """, arguments: arguments)
      return true
    }
    arguments += [rowID]
    // A copy without a client message id (another user's client, a server page) keeps the one already stored.
    try db.execute(
      sql: """
        UPDATE message SET serverID = COALESCE(?, serverID), clientMessageID = COALESCE(?, clientMessageID),
          conversationID = ?, senderID = ?, text = ?, images = ?, createdAt = ?, sortKey = ?, state = ?,
          failureReason = ? WHERE rowid = ?
        """, arguments: arguments)
    return false
  }

  /// A page of `conversationID`'s messages, oldest first: the newest `limit` before `position` (all of the newest
  /// when `nil`), for showing a conversation and loading older pages.
  public func messages(in conversationID: String, before position: Position? = nil, limit: Int) async throws
    -> [Message]
  {
    let bound = position.map { (Self.milliseconds($0.createdAt), $0.key) }
    let page = try await read("read messages") { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT * FROM message WHERE conversationID = ?
            AND (? IS NULL OR createdAt < ? OR (createdAt = ? AND sortKey < ?))
          ORDER BY createdAt DESC, sortKey DESC LIMIT ?
          """,
        arguments: [conversationID, bound?.0, bound?.0, bound?.0, bound?.1, max(0, limit)]
      ).map(Self.message)
    }
    return page.reversed()
  }

  /// `conversationID`'s messages after `position`, oldest first, at most `limit`.
  public func messages(in conversationID: String, after position: Position, limit: Int) async throws -> [Message] {
    let (time, key) = (Self.milliseconds(position.createdAt), position.key)
    return try await read("read messages") { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT * FROM message WHERE conversationID = ? AND (createdAt > ? OR (createdAt = ? AND sortKey > ?))
          ORDER BY createdAt, sortKey LIMIT ?
          """,
        arguments: [conversationID, time, time, key, max(0, limit)]
      ).map(Self.message)
    }
  }

  /// The newest message of `conversationID` the server has (state sent): where a catch-up starts; `nil` when none is
  /// stored, and the catch-up takes everything.
  public func latestSentMessage(in conversationID: String) async throws -> Message? {
    try await read("read the latest message") { db in
      try Row.fetchOne(
        db,
        sql: """
          SELECT * FROM message WHERE conversationID = ? AND state = 'sent'
          ORDER BY createdAt DESC, sortKey DESC LIMIT 1
          """, arguments: [conversationID]
      ).map(Self.message)
    }
  }

  /// The message with the client message id `clientMessageID`, sent or not.
  public func message(clientMessageID: String) async throws -> Message? {
    try await read("read a message") { db in
      try Row.fetchOne(db, sql: "SELECT * FROM message WHERE clientMessageID = ?", arguments: [clientMessageID])
        .map(Self.message)
    }
  }

  /// Deletes `conversationID`'s sent messages and keeps its pending and failed ones: for a catch-up whose gap is too
  /// large to page through, which starts again from the newest page.
  public func resetMessages(in conversationID: String) async throws {
    try await write("reset a conversation") { db in
      try db.execute(
        sql: "DELETE FROM message WHERE conversationID = ? AND state = 'sent'", arguments: [conversationID])
    }
  }

  /// How many messages the store holds for `conversationID`.
  public func messageCount(in conversationID: String) async throws -> Int {
    try await read("count messages") { db in
      try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message WHERE conversationID = ?", arguments: [conversationID])
        ?? 0
    }
  }

  // MARK: - Rows

  static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000).rounded()) }

  static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1_000) }

  static func message(_ row: Row) throws -> Message {
    let images = try JSONDecoder().decode([String].self, from: Data((row["images"] as String).utf8))
    return Message(
      id: row["serverID"], clientMessageID: row["clientMessageID"], conversationID: row["conversationID"],
      senderID: row["senderID"], text: row["text"], images: images,
      createdAt: date(milliseconds: row["createdAt"]),
      state: Message.State(rawValue: row["state"]) ?? .failed, failureReason: row["failureReason"])
  }
}
