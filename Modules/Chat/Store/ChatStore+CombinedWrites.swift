import Foundation
import GRDB
import Persistence

/// Messages stored together with what a catch-up or a push moves with them, one transaction each: a crash leaves both
/// or neither, and each costs one write.
extension ChatStore {
  /// Stores a page of `conversationID`'s catch-up and moves its sync point to the page's last message, in one
  /// transaction: a crash leaves both or neither, and a page costs one write.
  ///
  /// - Returns: The messages that were new to the store, as `upsert(_:)`.
  /// - Throws: as `upsert(_:)`; nothing is written when it throws.
  @discardableResult
  public func upsert(_ messages: [Message], movingSyncPointOf conversationID: String) async throws -> [Message] {
    guard let last = messages.last?.id else { return try await upsert(messages) }
    return try await upsert(messages, "store a page") { db in try Self.setSyncPoint(last, in: conversationID, db) }
  }

  /// Stores pushed `messages` and moves `userID`'s read position in `conversationID` to `messageID`, numbered `seq`
  /// (as ``moveReadPosition(of:in:to:seq:)``), in one transaction: the sender of a pushed message has read up to it.
  ///
  /// - Returns: The messages that were new to the store, as `upsert(_:)`.
  /// - Throws: as `upsert(_:)`; nothing is written when it throws.
  func upsert(
    _ messages: [Message], movingReadPositionOf userID: String, in conversationID: String, to messageID: String,
    seq: Int
  ) async throws -> [Message] {
    try await upsert(messages, "store pushed messages") { db in
      try Self.moveReadPosition(of: userID, in: conversationID, to: messageID, seq: seq, db)
    }
  }

  /// Stores pushed `messages` and moves `userID`'s read position, as
  /// ``upsert(_:movingReadPositionOf:in:to:seq:)``, and reads in the same transaction what an open window ending at
  /// `position` gains: `conversationID`'s messages after it (at most `limit`, oldest first) and every member's read
  /// position. A push reaches the screen without a read of its own after the write.
  ///
  /// It runs on the calling thread, blocking it for the transaction (``SQLiteStore/writeNow(_:_:)``): the store
  /// commits to its write-ahead log without an `fsync`, and the hops to the writer's queue and back, and off the
  /// caller's actor and back, took longer than this transaction of one message. So that nothing else waits before the
  /// screen, the eviction the write may call for is the caller's, after it has shown what was read: it is due when
  /// `evictionDue` is (``evictAfterGrowth()``).
  ///
  /// - Returns: The messages that were new to the store, as `upsert(_:)`, what was read, and whether an eviction is
  ///   due.
  /// - Throws: as `upsert(_:)`; nothing is written when it throws.
  func upsertNow(
    _ messages: [Message], movingReadPositionOf userID: String, in conversationID: String, to messageID: String,
    seq: Int, readingAfter position: Message.Position, limit: Int
  ) throws -> (inserted: [Message], newer: [Message], readPositions: [String: ReadPosition], evictionDue: Bool) {
    try checkTimes(of: messages)
    // The one write between the server's push and the screen: its messages wait in the search backlog for the write
    // of their count, which follows (or the next write, or a search). Indexed here, they were a third of it.
    let (inserted, (newer, positions)) = try writeNow(
      "store pushed messages",
      Self.upsertTransaction(messages, indexing: false) { db in
        try Self.moveReadPosition(of: userID, in: conversationID, to: messageID, seq: seq, db)
        return (
          try Self.messages(after: position, in: conversationID, limit: limit, db),
          try Self.readPositions(in: conversationID, db)
        )
      })
    return (inserted, newer, positions, grew(by: messages))
  }

  /// Stores `messages` (as `upsert(_:)`) with `also` in the same transaction, indexing them for search before it
  /// commits. What was written stays written and is returned: an eviction that fails after it (a busy or full disk)
  /// is tried again after the next write, and must not make the caller think these messages were not stored.
  func upsert(
    _ messages: [Message], _ operation: String, also: @escaping @Sendable (Database) throws -> Void
  ) async throws -> [Message] {
    try await upsert(messages, operation, alsoReading: also).inserted
  }

  /// Stores `messages` with `also` in the same transaction, as ``upsert(_:_:also:)``, and returns what `also` read
  /// beside the messages that were new. Without `indexing`, they wait in the search backlog for the next write that
  /// indexes (``indexBacklog(_:)``), or a search.
  func upsert<Also: Sendable>(
    _ messages: [Message], _ operation: String, indexing: Bool = true,
    alsoReading also: @escaping @Sendable (Database) throws -> Also
  ) async throws -> (inserted: [Message], also: Also) {
    try checkTimes(of: messages)
    let written = try await write(operation, Self.upsertTransaction(messages, indexing: indexing, also))
    try? await evictIfGrown(by: messages)
    return written
  }

  /// Refuses messages whose time the store cannot keep, before anything is written.
  private func checkTimes(of messages: [Message]) throws {
    if let odd = messages.first(where: { !Self.representable($0.createdAt) }) {
      throw PersistenceError(
        .invalidInput, "A message's time (\(odd.createdAt.timeIntervalSince1970) s) is outside 1970 to 9999.",
        path: url.path)
    }
  }

  /// The transaction of an upsert: `messages` stored, indexed for search when `indexing`, and `also` run after them.
  private static func upsertTransaction<Also: Sendable>(
    _ messages: [Message], indexing: Bool, _ also: @escaping @Sendable (Database) throws -> Also
  ) -> @Sendable (Database) throws -> (inserted: [Message], also: Also) {
    { db in
      var inserted: [Message] = []
      for message in messages where try Self.upsert(message, db) { inserted.append(message) }
      if indexing { try Self.indexBacklog(db) }
      return (inserted, try also(db))
    }
  }

  static func setSyncPoint(_ messageID: String, in conversationID: String, _ db: Database) throws {
    try db.execute(
      sql: """
        INSERT INTO sync (conversationID, messageID) VALUES (?, ?)
        ON CONFLICT(conversationID) DO UPDATE SET messageID = excluded.messageID
        """,
      arguments: [conversationID, messageID])
  }
}
