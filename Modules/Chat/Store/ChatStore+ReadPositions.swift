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

  static func moveReadPosition(
    of userID: String, in conversationID: String, to messageID: String, seq: Int, _ db: Database
  ) throws {
    try db.execute(
      sql: """
        INSERT INTO readPosition (conversationID, userID, messageID, seq) VALUES (?, ?, ?, ?)
        ON CONFLICT(conversationID, userID) DO UPDATE SET messageID = excluded.messageID, seq = excluded.seq
        WHERE excluded.seq > readPosition.seq
        """, arguments: [conversationID, userID, messageID, seq])
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
    try await read("read the read positions") { db in
      var positions: [String: ReadPosition] = [:]
      for row in try Row.fetchAll(
        db, sql: "SELECT userID, messageID, seq FROM readPosition WHERE conversationID = ?",
        arguments: [conversationID])
      {
        positions[row["userID"]] = ReadPosition(messageID: row["messageID"], seq: row["seq"])
      }
      return positions
    }
  }
}
