import Foundation
import GRDB
import Persistence

extension ChatStore {
  /// Stores `messages` in one transaction, each exactly once: one already stored (found by server id, else by the
  /// client message id of the same sender in the same conversation, as a pending message becomes sent) is updated in
  /// place; the rest are inserted. A sent message stays sent: a pending or failed copy of it changes nothing, and a
  /// whole one stays whole: an unavailable copy (``Message/isUnavailable``) changes nothing either. Then evicts
  /// conversations if the store is over ``maxSize`` (measured again when what it may have grown by since its last
  /// measurement could take it there).
  ///
  /// - Returns: The messages that were new to the store, in the order given: what a screen has not shown yet.
  /// - Throws: `PersistenceError`: `PersistenceError.Kind.invalidInput` for a time outside the years 1970 to
  ///   9999, or a storage failure; nothing is written when it throws.
  @discardableResult
  public func upsert(_ messages: [Message]) async throws -> [Message] {
    guard !messages.isEmpty else { return [] }
    return try await upsert(messages, "store messages") { _ in }
  }

  /// Stores `message`, a new message of the user's that is not sent yet, unless the store holds a copy of it already
  /// (found by its client message id): the outbox may have sent it, and stored what became of it, first.
  ///
  /// - Returns: Whether it was stored.
  /// - Throws: as `upsert(_:)`.
  @discardableResult
  public func addPending(_ message: Message) async throws -> Bool {
    guard let clientID = message.clientMessageID else { return try await !upsert([message]).isEmpty }
    let added = try await write("store a new message") { db in
      let held =
        try Bool.fetchOne(
          db.cachedStatement(
            sql: """
              SELECT EXISTS(SELECT 1 FROM message WHERE conversationID = ? AND senderID = ? AND clientMessageID = ?)
              """), arguments: [message.conversationID, message.senderID, clientID]) ?? false
      // Not indexed for search here: the write of its sent copy (or the next write, or a search) does it, once. Indexed
      // here, it was indexed again as its time changed on sending, a third of the pending copy's write.
      return try !held && Self.upsert(message, db)
    }
    try? await evictIfGrown(by: [message])
    return added
  }

  /// Stores a pushed message and, when the store did not have it, counts it in its conversation's unread count (as
  /// ``countArrival(of:by:)``; the user's own message always, which leaves nothing unread), in one transaction: a list
  /// never shows the message without its count.
  ///
  /// - Returns: Whether the message was new to the store.
  /// - Throws: `PersistenceError`, as storing messages does; nothing is written when it throws.
  @discardableResult
  public func receive(_ message: Message, by userID: String) async throws -> Bool {
    guard Self.representable(message.createdAt) else {
      throw PersistenceError(.invalidInput, "A pushed message's time is outside 1970 to 9999.", path: url.path)
    }
    let isNew = try await writeLists("store a pushed message") { db in
      let known = try message.id.map { id in
        try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM message WHERE serverID = ?)", arguments: [id]) ?? false
      }
      _ = try Self.upsert(message, db)
      try Self.indexBacklog(db)
      // The user's own message always counts: the server moved their read pointer to it.
      if known == false || message.senderID == userID { try Self.countArrival(of: message, by: userID, db) }
      return known == false
    }
    try? await evictIfGrown(by: [message])
    return isNew
  }

  /// Upserts one message; returns whether it was new. Its statements are prepared once per connection: preparing
  /// one compiles the triggers it fires, and GRDB reads every column they touch, which cost more than the writes.
  ///
  /// A message the store does not hold (most of a page, another member's push) goes in with one statement, its search
  /// key with it: the insert changes nothing when its server id or its client message id is taken, and only then is
  /// the stored copy looked up, by the one or the other, and updated.
  static func upsert(_ message: Message, _ db: Database) throws -> Bool {
    let position = message.position
    let createdAt = milliseconds(position.createdAt)
    var arguments: StatementArguments = [
      message.id, message.clientMessageID, message.conversationID, message.senderID, message.text,
      try encoded(message.images), createdAt, position.key, message.state.rawValue, message.failureReason,
      message.isUnavailable, message.seq, message.editedAt.map(milliseconds), message.isDeleted, message.replyTo,
      message.replyCount, message.lastReplyID, try encoded(message.reactions), message.version,
      try encoded(message.mentions), try encoded(message.files),
    ]
    try db.cachedStatement(sql: insertIfNew).execute(arguments: arguments + [createdAt])
    if db.changesCount > 0 { return true }

    var found: Row?
    if let id = message.id {
      found = try Row.fetchOne(
        db.cachedStatement(sql: "SELECT rowid, state, unavailable, deleted, version FROM message WHERE serverID = ?"),
        arguments: [id])
    }
    if found == nil, let clientID = message.clientMessageID {
      found = try Row.fetchOne(
        db.cachedStatement(
          sql: """
            SELECT rowid, state, unavailable, deleted, version FROM message
            WHERE conversationID = ? AND senderID = ? AND clientMessageID = ?
            """), arguments: [message.conversationID, message.senderID, clientID])
    }
    guard let found else {
      // Nothing holds either id, yet the insert changed nothing: no uniqueness constraint but those two can do that.
      throw PersistenceError(.corrupted, "A message that conflicts with no stored one could not be stored.")
    }
    if found["state"] == Message.State.sent.rawValue {
      if message.state != .sent { return false }
      if message.isUnavailable, found["unavailable"] == false { return false }
      // An older copy (a push overtaken by a later change, a page read before it) changes nothing.
      if let stored: Int = found["version"], stored > message.version ?? .max { return false }
    }
    let rowID: Int64 = found["rowid"]
    arguments += [rowID]
    // A copy without a client message id (another user's client, a server page) keeps the one already stored.
    try db.cachedStatement(
      sql: """
        UPDATE message SET serverID = COALESCE(?, serverID), clientMessageID = COALESCE(?, clientMessageID),
          conversationID = ?, senderID = ?, text = ?, images = ?, createdAt = ?, sortKey = ?, state = ?,
          failureReason = ?, unavailable = ?, seq = COALESCE(?, seq), editedAt = ?, deleted = ?, replyTo = ?,
          replyCount = ?, lastReplyID = ?, reactions = ?, version = COALESCE(?, version), mentions = ?, files = ?
          WHERE rowid = ?
        """
    ).execute(arguments: arguments)
    return false
  }

  /// Inserts a message with the next free search key of its millisecond, unless its server id, or its client message
  /// id among its sender's messages to its conversation, is taken: then it changes nothing. The key is the schema's
  /// own expression of the time, the 22nd argument (`?22`, after the columns' 21), named as often as it needs.
  private static let insertIfNew = """
    INSERT INTO message (serverID, clientMessageID, conversationID, senderID, text, images, createdAt, sortKey, state,
      failureReason, unavailable, seq, editedAt, deleted, replyTo, replyCount, lastReplyID, reactions, version,
      mentions, files, searchKey)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, \(ChatStoreSchema.searchKey("?22")))
    ON CONFLICT DO NOTHING
    """

  /// `value` as the JSON a column keeps; `[]` for an empty array, which rows read back without a decoder.
  static func encoded<T: Encodable & Collection>(_ value: T) throws -> String {
    value.isEmpty ? "[]" : String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
  }

  /// Stores what changed about messages the store holds (edited, deleted, reacted to, replied to), each as the server
  /// has it now, in one transaction; a message it does not hold is left out (its page brings it whole, in its place),
  /// and so is a copy older than the stored one.
  ///
  /// - Returns: How many stored messages changed.
  /// - Throws: `PersistenceError` for a storage failure; nothing is written then.
  @discardableResult
  public func applyChanges(_ messages: [Message]) async throws -> Int {
    let changes = messages.filter { $0.id != nil && Self.representable($0.createdAt) }
    guard !changes.isEmpty else { return 0 }
    let changed = try await write("store changed messages") { db in
      var changed = 0
      for message in changes {
        guard let id = message.id,
          try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM message WHERE serverID = ?)", arguments: [id])
            == true
        else { continue }
        let before = db.totalChangesCount
        _ = try Self.upsert(message, db)
        if db.totalChangesCount > before { changed += 1 }
      }
      try Self.indexBacklog(db)
      return changed
    }
    // An edit may make a message longer.
    if changed > 0 { try? await evictIfGrown(by: changes) }
    return changed
  }

  /// How far `conversationID`'s changes were caught up: the conversation's change number (``Message/version``) at
  /// the last catch-up, from which the next asks what changed; `nil` before the first (or after a reset).
  public func changeVersion(in conversationID: String) async throws -> Int? {
    try await read("read a change number") { db in
      try Int.fetchOne(
        db, sql: "SELECT changeVersion FROM sync WHERE conversationID = ?", arguments: [conversationID])
    }
  }

  /// Records that `conversationID`'s changes are caught up to `version`; kept with its sync point, and gone with it.
  public func setChangeVersion(_ version: Int, in conversationID: String) async throws {
    try await write("record a change number") { db in
      try db.execute(
        sql: "UPDATE sync SET changeVersion = ? WHERE conversationID = ?", arguments: [version, conversationID])
    }
  }

  /// A page of the replies to `parentID` in `conversationID`, oldest first: the newest `limit` before `position`
  /// (the newest when `nil`), as ``messages(in:before:limit:)`` pages a conversation.
  public func replies(
    to parentID: String, in conversationID: String, before position: Message.Position? = nil,
    limit: Int
  ) async throws -> [Message] {
    let bound = position.map { (Self.milliseconds($0.createdAt), $0.key) }
    let page = try await read("read replies") { db in
      try Self.messages(
        db.cachedStatement(
          sql: """
            SELECT \(Self.messageColumns) FROM message WHERE conversationID = ? AND replyTo = ?
              AND (? IS NULL OR createdAt < ? OR (createdAt = ? AND sortKey < ?))
            ORDER BY createdAt DESC, sortKey DESC LIMIT ?
            """),
        arguments: [conversationID, parentID, bound?.0, bound?.0, bound?.0, bound?.1, max(0, limit)]
      )
    }
    return page.reversed()
  }

  /// A page of `conversationID`'s messages, oldest first: the newest `limit` before `position` (all of the newest
  /// when `nil`), for showing a conversation and loading older pages.
  public func messages(in conversationID: String, before position: Message.Position? = nil, limit: Int) async throws
    -> [Message]
  {
    let limit = max(0, limit)
    return try await read("read messages") { db in
      // Two statements rather than one with `? IS NULL OR …`: a bound written as a row value is a range of the
      // ordering index, which SQLite seeks to, where the other form made it walk the index from the newest message.
      guard let position else { return try Self.newest(limit, in: conversationID, db) }
      return try Self.messages(
        db.cachedStatement(
          sql: """
            SELECT \(Self.messageColumns) FROM message WHERE conversationID = ? AND (createdAt, sortKey) < (?, ?)
            ORDER BY createdAt DESC, sortKey DESC LIMIT ?
            """),
        arguments: [conversationID, Self.milliseconds(position.createdAt), position.key, limit]
      ).reversed()
    }
  }

  /// The newest `limit` messages of `conversationID`, oldest first.
  static func newest(_ limit: Int, in conversationID: String, _ db: Database) throws -> [Message] {
    try messages(
      db.cachedStatement(
        sql: """
          SELECT \(messageColumns) FROM message WHERE conversationID = ?
          ORDER BY createdAt DESC, sortKey DESC LIMIT ?
          """),
      arguments: [conversationID, max(0, limit)]
    ).reversed()
  }

  /// At most `limit` of `conversationID`'s messages after `position`, oldest first.
  static func messages(
    after position: Message.Position, in conversationID: String, limit: Int, _ db: Database
  ) throws -> [Message] {
    try messages(
      db.cachedStatement(
        sql: """
          SELECT \(messageColumns) FROM message WHERE conversationID = ? AND (createdAt, sortKey) > (?, ?)
          ORDER BY createdAt, sortKey LIMIT ?
          """),
      arguments: [conversationID, milliseconds(position.createdAt), position.key, max(0, limit)])
  }

  /// `conversationID`'s messages after `position`, oldest first, at most `limit`.
  public func messages(in conversationID: String, after position: Message.Position, limit: Int) async throws
    -> [Message]
  {
    try await read("read messages") { db in try Self.messages(after: position, in: conversationID, limit: limit, db) }
  }

  /// The newest message of `conversationID` the server has (state sent): where a catch-up starts; `nil` when none is
  /// stored, and the catch-up takes everything.
  public func latestSentMessage(in conversationID: String) async throws -> Message? {
    try await read("read the latest message") { db in
      try Row.fetchOne(
        db,
        sql: """
          SELECT \(Self.messageColumns) FROM message WHERE conversationID = ? AND state = 'sent'
          ORDER BY createdAt DESC, sortKey DESC LIMIT 1
          """, arguments: [conversationID]
      ).map(Self.message)
    }
  }

  /// The message whose server id is `serverID`, if the store holds it.
  public func message(serverID: String) async throws -> Message? {
    try await read("read a message") { db in
      try Row.fetchOne(db, sql: "SELECT \(Self.messageColumns) FROM message WHERE serverID = ?", arguments: [serverID])
        .map(Self.message)
    }
  }

  /// The message `senderID` sent to `conversationID` with the client message id `clientMessageID`, sent or not.
  public func message(clientMessageID: String, in conversationID: String, from senderID: String) async throws
    -> Message?
  {
    try await read("read a message") { db in
      try Row.fetchOne(
        db,
        sql:
          "SELECT \(Self.messageColumns) FROM message WHERE conversationID = ? AND senderID = ? AND clientMessageID = ?",
        arguments: [conversationID, senderID, clientMessageID]
      ).map(Self.message)
    }
  }

  /// Deletes `conversationID`'s sent messages and its sync point, and keeps its pending and failed ones: for a
  /// catch-up whose gap is too large to page through, which starts again from the newest page.
  public func resetMessages(in conversationID: String) async throws {
    try await write("reset a conversation") { db in
      try db.execute(
        sql: "DELETE FROM message WHERE conversationID = ? AND state = 'sent'", arguments: [conversationID])
      try db.execute(sql: "DELETE FROM sync WHERE conversationID = ?", arguments: [conversationID])
    }
  }

  // MARK: - Sequence numbers

  /// The highest number (``Message/seq``) of `conversationID`'s stored messages; `nil` when none has one.
  public func newestSeq(in conversationID: String) async throws -> Int? {
    try await read("read the newest number") { db in
      try Int.fetchOne(db, sql: "SELECT MAX(seq) FROM message WHERE conversationID = ?", arguments: [conversationID])
    }
  }

  /// Whether a message with the server id `serverID` is stored.
  public func contains(serverID: String) async throws -> Bool {
    try await read("find a message") { db in
      try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM message WHERE serverID = ?)", arguments: [serverID])
        ?? false
    }
  }

  /// How many of `conversationID`'s stored messages have a number in `range`: all of them when nothing in it is
  /// missing.
  public func count(numbered range: ClosedRange<Int>, in conversationID: String) async throws -> Int {
    try await read("count numbered messages") { db in
      try Int.fetchOne(
        db, sql: "SELECT COUNT(DISTINCT seq) FROM message WHERE conversationID = ? AND seq BETWEEN ? AND ?",
        arguments: [conversationID, range.lowerBound, range.upperBound]) ?? 0
    }
  }

  // MARK: - Sync points

  /// The server id of the message `conversationID`'s last catch-up ended with: everything up to it is stored without a
  /// gap, so the next catch-up asks for what came after it. `nil` when none ran (or the store was reset or evicted),
  /// and the next catch-up starts from the newest page. An empty id says the conversation was empty at that catch-up:
  /// everything it holds now is new.
  ///
  /// A pushed message does not move it: a push can be lost or overtaken while the socket is up, and the catch-up
  /// after a reconnection finds it only by reading from here.
  public func syncPoint(in conversationID: String) async throws -> String? {
    try await read("read a sync point") { db in
      try String.fetchOne(db, sql: "SELECT messageID FROM sync WHERE conversationID = ?", arguments: [conversationID])
    }
  }

  /// Records that `conversationID` is stored without a gap up to the message `messageID` (a catch-up's last).
  public func setSyncPoint(_ messageID: String, in conversationID: String) async throws {
    try await write("record a sync point") { db in try Self.setSyncPoint(messageID, in: conversationID, db) }
  }

  /// How many messages the store holds for `conversationID`.
  public func messageCount(in conversationID: String) async throws -> Int {
    try await read("count messages") { db in
      try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message WHERE conversationID = ?", arguments: [conversationID])
        ?? 0
    }
  }

  // MARK: - Rows

  /// The latest time stored: the end of the year 9999, in milliseconds.
  static let maxMilliseconds: Int64 = 253_402_300_799_999

  /// Whether `date` is within the years 1970 to 9999, which the store keeps exactly.
  static func representable(_ date: Date) -> Bool {
    let milliseconds = date.timeIntervalSince1970 * 1_000
    return milliseconds.isFinite && milliseconds >= 0 && milliseconds <= Double(maxMilliseconds)
  }

  /// `date` in whole milliseconds since 1970, held to the years 1970 to 9999 (a NaN is 0): never a trap.
  static func milliseconds(_ date: Date) -> Int64 {
    let milliseconds = (date.timeIntervalSince1970 * 1_000).rounded()
    guard milliseconds.isFinite else { return 0 }
    return Int64(min(max(milliseconds, 0), Double(maxMilliseconds)))
  }

  static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1_000) }

  /// The array a JSON column of `row` keeps. Most messages have no image, reaction, mention or file: their `[]`
  /// costs no decoder (a screen's window is read again on every change).
  private static func array<Element: Decodable>(_ value: String) throws -> [Element] {
    return value == "[]" ? [] : try JSONDecoder().decode([Element].self, from: Data(value.utf8))
  }

  /// The columns ``message(_:)`` reads, in its order: what a query of messages selects first. (By position: a
  /// column found by its name costs a case-insensitive search of the row's names, most of a page's decoding.)
  static let messageColumns = [
    "serverID", "clientMessageID", "conversationID", "senderID", "text", "images", "createdAt", "state",
    "failureReason", "unavailable", "seq", "editedAt", "deleted", "replyTo", "replyCount", "lastReplyID", "reactions",
    "version", "mentions", "files",
  ].map { "message.\($0)" }.joined(separator: ", ")

  /// The messages of the rows `statement` selects with `arguments`, whose first columns are ``messageColumns``, each
  /// read straight from SQLite as the cursor steps (no copy of every row first, as `Row.fetchAll` makes).
  static func messages(_ statement: Statement, arguments: StatementArguments) throws -> [Message] {
    var messages: [Message] = []
    let rows = try Row.fetchCursor(statement, arguments: arguments)
    while let row = try rows.next() { messages.append(try message(row)) }
    return messages
  }

  /// The message of a row whose first columns are ``messageColumns``.
  static func message(_ row: Row) throws -> Message {
    let editedAt: Int64? = row[11]
    return Message(
      id: row[0], clientMessageID: row[1], conversationID: row[2], senderID: row[3], text: row[4],
      images: try array(row[5]), createdAt: date(milliseconds: row[6]),
      state: Message.State(rawValue: row[7]) ?? .failed, failureReason: row[8], isUnavailable: row[9], seq: row[10],
      editedAt: editedAt.map(date(milliseconds:)), isDeleted: row[12], replyTo: row[13], replyCount: row[14],
      lastReplyID: row[15], reactions: try array(row[16]), version: row[17], mentions: try array(row[18]),
      files: try array(row[19]))
  }
}
