import Foundation
import GRDB

extension DurableQueue {
  /// Moves the elements with these ids out of delivery for good, keeping them with `reason`: for poison events the
  /// server will never accept (a 400, or a 413 for a single event). Unknown ids are ignored.
  ///
  /// At most ``deadLetterCapacity`` dead letters are kept; past it the oldest are deleted, in the same transaction,
  /// and counted in ``DurableQueueStatistics/deadLettersDropped``.
  ///
  /// - Returns: How many elements were moved.
  @discardableResult
  public func deadLetter(_ ids: [Int64], reason: String) async throws -> Int {
    guard !ids.isEmpty else { return 0 }
    let (deadLetteredAt, deadLetterCapacity) = (now().timeIntervalSince1970, deadLetterCapacity)
    return try await write("dead-letter elements") { db in
      let moved = try Self.forEachChunk(of: ids) { chunk in
        let list = Self.placeholders(chunk.count)
        try db.execute(
          sql: """
            INSERT INTO deadLetter (id, payload, enqueuedAt, attempts, reason, deadLetteredAt)
            SELECT id, payload, enqueuedAt, attempts, ?, ? FROM queue WHERE id IN (\(list))
            """,
          arguments: [reason, deadLetteredAt] + StatementArguments(chunk))
        try db.execute(sql: "DELETE FROM queue WHERE id IN (\(list))", arguments: StatementArguments(chunk))
        return db.changesCount
      }
      let excess = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM deadLetter")! - deadLetterCapacity
      if excess > 0 {
        try db.execute(
          sql: "DELETE FROM deadLetter WHERE id IN (SELECT id FROM deadLetter ORDER BY id LIMIT ?)",
          arguments: [excess])
        try DurableQueueSchema.add(excess, to: .deadLettersDropped, db)
      }
      return moved
    }
  }

  /// The oldest dead letters, in enqueue (id) order.
  ///
  /// - Parameter limit: The most returned; none for 0 or less.
  public func deadLetters(limit: Int) async throws -> [DeadLetter<Element>] {
    guard limit > 0 else { return [] }
    let rows = try await read("read dead letters") { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT id, payload, enqueuedAt, attempts, reason, deadLetteredAt FROM deadLetter ORDER BY id LIMIT ?
          """,
        arguments: [limit]
      ).map { row in
        DeadLetter<Element>(
          id: row["id"], element: nil, payload: row["payload"], reason: row["reason"], attempts: row["attempts"],
          enqueuedAt: Date(timeIntervalSince1970: row["enqueuedAt"]),
          deadLetteredAt: Date(timeIntervalSince1970: row["deadLetteredAt"]))
      }
    }
    let decoder = JSONDecoder()
    return rows.map { letter in
      DeadLetter(
        id: letter.id, element: try? decoder.decode(Element.self, from: letter.payload), payload: letter.payload,
        reason: letter.reason, attempts: letter.attempts, enqueuedAt: letter.enqueuedAt,
        deadLetteredAt: letter.deadLetteredAt)
    }
  }

  /// The number of dead letters.
  public func deadLetterCount() async throws -> Int {
    try await read("count dead letters") { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM deadLetter")! }
  }

  /// Deletes the dead letters with these ids, once they have been looked at or reported. Unknown ids are ignored.
  ///
  /// - Returns: How many were deleted.
  @discardableResult
  public func removeDeadLetters(_ ids: [Int64]) async throws -> Int {
    guard !ids.isEmpty else { return 0 }
    return try await write("remove dead letters") { db in
      try Self.forEachChunk(of: ids) { chunk in
        try db.execute(
          sql: "DELETE FROM deadLetter WHERE id IN (\(Self.placeholders(chunk.count)))",
          arguments: StatementArguments(chunk))
        return db.changesCount
      }
    }
  }

  /// Puts the dead letters with these ids back into delivery, at the back of the queue, as new elements (new ids, no
  /// attempts, due at once): for events set aside by a server that has since been fixed. Unknown ids are ignored. A
  /// dead letter whose payload no longer decodes goes back too; the next ``peek(limit:now:)`` sets it aside again.
  ///
  /// - Returns: How many went back.
  /// - Throws: ``PersistenceError`` of kind ``PersistenceError/Kind/capacityExceeded`` when they would take the queue
  ///   past ``capacity`` (nothing moved), or a storage failure.
  @discardableResult
  public func requeueDeadLetters(_ ids: [Int64]) async throws -> Int {
    guard !ids.isEmpty else { return 0 }
    let enqueuedAt = now().timeIntervalSince1970
    let (capacity, url) = (capacity, url)
    return try await write("re-queue dead letters") { db in
      try Self.forEachChunk(of: ids) { chunk in
        let list = Self.placeholders(chunk.count)
        let found = try Int.fetchOne(
          db, sql: "SELECT COUNT(*) FROM deadLetter WHERE id IN (\(list))", arguments: StatementArguments(chunk))!
        let pending = try DurableQueueSchema.value(of: .pending, db)
        guard pending + found <= capacity else {
          // Thrown inside the transaction: the chunks moved before this one go back too.
          throw PersistenceError(
            .capacityExceeded,
            "The durable queue at \(url.path) holds \(pending) of its \(capacity) elements; \(found) dead letters do "
              + "not fit back, so none went back.", path: url.path)
        }
        // New ids from `nextId`, in the dead letters' order: back at the end of the queue.
        try db.execute(
          sql: """
            INSERT INTO queue (id, payload, enqueuedAt)
              SELECT (SELECT value FROM meta WHERE key = 'nextId') - 1 + ROW_NUMBER() OVER (ORDER BY id), payload, ?
              FROM deadLetter WHERE id IN (\(list)) ORDER BY id
            """,
          arguments: StatementArguments([enqueuedAt]) + StatementArguments(chunk))
        try DurableQueueSchema.add(db.changesCount, to: .nextId, db)
        try db.execute(sql: "DELETE FROM deadLetter WHERE id IN (\(list))", arguments: StatementArguments(chunk))
        return db.changesCount
      }
    }
  }

  /// Puts every dead letter back into delivery, oldest first; see ``requeueDeadLetters(_:)``.
  ///
  /// - Returns: How many went back.
  @discardableResult
  public func requeueAllDeadLetters() async throws -> Int {
    let ids = try await read("list dead letters") { db in
      try Int64.fetchAll(db, sql: "SELECT id FROM deadLetter ORDER BY id")
    }
    return try await requeueDeadLetters(ids)
  }
}
