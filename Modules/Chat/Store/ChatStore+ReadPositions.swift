import Foundation
import GRDB
import Persistence

extension ChatStore {
  /// Moves `userID`'s read position in `conversationID` to `messageID`, numbered `seq`, unless it is there or further
  /// on already (pushes can come out of order).
  public func moveReadPosition(of userID: String, in conversationID: String, to messageID: String, seq: Int)
    async throws
  {
    try await write("move a read position") { db in
      try Self.moveReadPosition(of: userID, in: conversationID, to: messageID, seq: seq, db)
    }
  }

  /// Whether the store holds the message whose server id is `messageID` yet, and, in the same transaction, moves
  /// `userID`'s position in `conversationID` to it when `seq` is given: what a pushed message into an open conversation
  /// asks of the store before its conversation stores it (its sender has read up to it).
  func arrival(
    of messageID: String, from userID: String, in conversationID: String, seq: Int?
  ) async throws -> Bool {
    try await write("take a pushed message") { db in
      let known =
        try Bool.fetchOne(
          db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM message WHERE serverID = ?)"), arguments: [messageID])
        ?? false
      if let seq { try Self.moveReadPosition(of: userID, in: conversationID, to: messageID, seq: seq, db) }
      return known
    }
  }

  static func moveReadPosition(
    of userID: String, in conversationID: String, to messageID: String, seq: Int, _ db: Database
  ) throws {
    // Cached: every pushed message moves its sender's position, and a statement made anew is parsed and checked again.
    try db.cachedStatement(
      sql: """
        INSERT INTO readPosition (conversationID, userID, messageID, seq) VALUES (?, ?, ?, ?)
        ON CONFLICT(conversationID, userID) DO UPDATE SET messageID = excluded.messageID, seq = excluded.seq
        WHERE excluded.seq > readPosition.seq
        """
    ).execute(arguments: [conversationID, userID, messageID, seq])
  }

  /// Moves every member's read position in `conversationID` as the server listed them, each only forward.
  public func moveReadPositions(_ positions: [String: ReadPosition], in conversationID: String) async throws {
    guard !positions.isEmpty else { return }
    try await write("move read positions") { db in
      for (userID, position) in positions {
        try Self.moveReadPosition(
          of: userID, in: conversationID, to: position.messageID, seq: position.seq, db)
      }
    }
  }

  /// How far each member has read in `conversationID`, by user id.
  public func readPositions(in conversationID: String) async throws -> [String: ReadPosition] {
    try await read("read the read positions") { db in try Self.readPositions(in: conversationID, db) }
  }

  /// The newest `limit` messages of `conversationID`, oldest first, and how far each member has read, from one
  /// snapshot of the store: what an open conversation shows, read at once.
  func window(of conversationID: String, limit: Int) async throws -> ([Message], [String: ReadPosition]) {
    try await read("read a conversation") { db in
      (try Self.newest(limit, in: conversationID, db), try Self.readPositions(in: conversationID, db))
    }
  }

  /// `conversationID`'s messages after `position`, oldest first, at most `limit`, and how far each member has read,
  /// from one snapshot of the store: what an open conversation adds to a window that ends at `position`.
  func window(of conversationID: String, after position: Message.Position, limit: Int) async throws -> (
    [Message], [String: ReadPosition]
  ) {
    try await read("read a conversation") { db in
      (
        try Self.messages(after: position, in: conversationID, limit: limit, db),
        try Self.readPositions(in: conversationID, db)
      )
    }
  }

  /// How far each member has read in `conversationID`, by user id, inside a transaction.
  static func readPositions(in conversationID: String, _ db: Database) throws -> [String: ReadPosition] {
    var positions: [String: ReadPosition] = [:]
    let rows = try Row.fetchCursor(
      db.cachedStatement(sql: "SELECT userID, messageID, seq FROM readPosition WHERE conversationID = ?"),
      arguments: [conversationID])
    while let row = try rows.next() {
      positions[row["userID"]] = ReadPosition(messageID: row["messageID"], seq: row["seq"])
    }
    return positions
  }
}
