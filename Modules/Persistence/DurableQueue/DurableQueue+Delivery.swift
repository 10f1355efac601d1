import Foundation
import GRDB

/// The due elements, oldest first: the cutoff time and the limit as its arguments.
private let dueElementsSQL = """
  SELECT id, payload, enqueuedAt, attempts, notBefore FROM queue WHERE notBefore <= ? ORDER BY id LIMIT ?
  """

extension DurableQueue {
  /// The oldest pending elements that are due, without removing them: those never released, and those whose
  /// ``QueuedItem/notBefore`` is at or before `now`, in enqueue (id) order.
  ///
  /// A stored payload that no longer decodes as `Element` (the type changed shape between versions) would block the
  /// head of the queue forever if it were an error here, so it is moved to the dead letters with the decoding error
  /// as its reason, and the peek goes on with the next elements. ``deadLetters(limit:)`` still has its bytes.
  ///
  /// - Parameters:
  ///   - limit: The most items returned; none for 0 or less.
  ///   - now: The time the due dates are compared with; the queue's clock when `nil`.
  public func peek(limit: Int, now: Date? = nil) async throws -> [QueuedItem<Element>] {
    guard limit > 0 else { return [] }
    let cutoff = (now ?? self.now()).timeIntervalSince1970
    let decoder = JSONDecoder()
    while true {
      let rows = try await read("read pending elements") { db in
        try StoredItem.fetchAll(db.cachedStatement(sql: dueElementsSQL), arguments: [cutoff, limit])
      }
      let (items, undecodable) = Self.decode(rows, with: decoder)
      if undecodable.isEmpty { return items }
      for (id, reason) in undecodable { try await deadLetter([id], reason: reason) }
    }
  }

  /// The oldest pending elements that are due, as ``peek(limit:now:)`` returns them, but read on the calling thread:
  /// it blocks for the read (which in SQLite's write-ahead log never waits for a writer) instead of suspending. For a
  /// deliverer on the path to the network, where the hop to a reader's queue and back took longer than the read.
  ///
  /// - Returns: The items; `nil` when one of them no longer decodes as `Element`, which ``peek(limit:now:)`` then sets
  ///   aside as a dead letter.
  public func peekNow(limit: Int) throws -> [QueuedItem<Element>]? {
    guard limit > 0 else { return [] }
    let cutoff = self.now().timeIntervalSince1970
    let rows = try readNow("read pending elements") { db in
      try StoredItem.fetchAll(db.cachedStatement(sql: dueElementsSQL), arguments: [cutoff, limit])
    }
    let (items, undecodable) = Self.decode(rows, with: JSONDecoder())
    return undecodable.isEmpty ? items : nil
  }

  /// `rows` as items, and those whose payload does not decode as `Element`, each with the reason.
  private static func decode(
    _ rows: [StoredItem], with decoder: JSONDecoder
  ) -> (items: [QueuedItem<Element>], undecodable: [(id: Int64, reason: String)]) {
    var items: [QueuedItem<Element>] = []
    var undecodable: [(id: Int64, reason: String)] = []
    for row in rows {
      do {
        items.append(try row.item(decoder.decode(Element.self, from: row.payload)))
      } catch {
        undecodable.append((row.id, "The stored payload does not decode as \(Element.self): \(error)"))
      }
    }
    return (items, undecodable)
  }

  /// The earliest time at which ``peek(limit:now:)`` returns something, so that a deliverer knows when to wake: a time
  /// in the past (the epoch for elements never released) means now; `nil` means the queue is empty.
  public func nextNotBefore() async throws -> Date? {
    let earliest = try await read("find the next due time") { db in
      // The index holds only released elements (notBefore ≠ 0): any element not in it is due at once (0).
      try Double.fetchOne(
        db,
        sql: """
          SELECT CASE WHEN (SELECT value FROM meta WHERE key = 'pending') = 0 THEN NULL
            WHEN (SELECT COUNT(*) FROM queue WHERE notBefore != 0) < (SELECT value FROM meta WHERE key = 'pending')
              THEN MIN(0, COALESCE((SELECT MIN(notBefore) FROM queue WHERE notBefore != 0), 0))
            ELSE (SELECT MIN(notBefore) FROM queue WHERE notBefore != 0) END
          """)
    }
    return earliest.map(Date.init(timeIntervalSince1970:))
  }

  /// Deletes the elements with these ids, once delivered (REQUIREMENTS E2: deleted only after acknowledgement).
  /// Unknown ids are ignored, so an acknowledgement may be repeated.
  ///
  /// - Returns: How many elements were deleted.
  @discardableResult
  public func acknowledge(_ ids: [Int64]) async throws -> Int {
    guard !ids.isEmpty else { return 0 }
    return try await write("acknowledge elements") { db in
      // One element (a sender's, one message at a time) by a cached statement: a delete made anew compiles the
      // trigger that counts it too.
      if ids.count == 1 {
        try db.cachedStatement(sql: "DELETE FROM queue WHERE id = ?").execute(arguments: [ids[0]])
        return db.changesCount
      }
      return try Self.forEachChunk(of: ids) { chunk in
        let sql = "DELETE FROM queue WHERE id IN (\(Self.placeholders(chunk.count)))"
        try db.execute(sql: sql, arguments: StatementArguments(chunk))
        return db.changesCount
      }
    }
  }

  /// Records a failed delivery of the elements with these ids: adds one to their ``QueuedItem/attempts`` and hides
  /// them from ``peek(limit:now:)`` until `retryAt`. Both persist across restarts. Unknown ids are ignored.
  ///
  /// - Returns: How many elements were updated.
  @discardableResult
  public func release(_ ids: [Int64], retryAt: Date) async throws -> Int {
    guard !ids.isEmpty else { return 0 }
    let retryAt = retryAt.timeIntervalSince1970
    return try await write("release elements") { db in
      try Self.forEachChunk(of: ids) { chunk in
        try db.execute(
          sql: """
            UPDATE queue SET attempts = attempts + 1, notBefore = ?
            WHERE id IN (\(Self.placeholders(chunk.count)))
            """,
          arguments: StatementArguments([retryAt]) + StatementArguments(chunk))
        return db.changesCount
      }
    }
  }

  /// Deletes every pending element, delivered or not (the user withdrew consent, say); dead letters stay.
  ///
  /// - Returns: How many were deleted.
  @discardableResult
  public func removeAllPending() async throws -> Int {
    try await write("remove every pending element") { db in
      try db.execute(sql: "DELETE FROM queue")
      return db.changesCount
    }
  }

  // MARK: - Helpers

  /// SQLite limits the number of `?` in one statement; ids go in chunks well below it.
  static func forEachChunk(of ids: [Int64], _ body: ([Int64]) throws -> Int) rethrows -> Int {
    var total = 0
    for start in stride(from: 0, to: ids.count, by: 500) {
      total += try body(Array(ids[start..<min(start + 500, ids.count)]))
    }
    return total
  }

  static func placeholders(_ count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ",")
  }
}
