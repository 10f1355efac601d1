import Foundation
import GRDB

extension DurableQueue {
  /// Moves the elements with these ids out of delivery for good, keeping them with `reason`: for poison events the
  /// server will never accept (a 400, or a 413 for a single event). Unknown ids are ignored.
  ///
  /// At most ``deadLetterCapacity`` dead letters are kept, and those kept stay until they are removed or re-queued:
  /// when the table is full, the elements that do not fit leave delivery all the same (they would be refused forever),
  /// are not kept, and are counted in ``DeadLettering/dropped`` and ``DurableQueueStatistics/deadLettersDropped``, so
  /// that whoever set them aside can say so.
  ///
  /// - Returns: How many elements were kept as dead letters, and how many did not fit.
  @discardableResult
  public func deadLetter(_ ids: [Int64], reason: String) async throws -> DeadLettering {
    guard !ids.isEmpty else { return DeadLettering(kept: 0, dropped: 0) }
    let (deadLetteredAt, deadLetterCapacity) = (now().timeIntervalSince1970, deadLetterCapacity)
    return try await write("dead-letter elements") { db in
      var outcome = DeadLettering(kept: 0, dropped: 0)
      _ = try Self.forEachChunk(of: ids) { chunk in
        let list = Self.placeholders(chunk.count)
        let room = max(0, deadLetterCapacity - (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM deadLetter")!))
        // The oldest of the chunk first, as many as there is room for.
        try db.execute(
          sql: """
            INSERT INTO deadLetter (id, payload, enqueuedAt, attempts, reason, deadLetteredAt)
            SELECT id, payload, enqueuedAt, attempts, ?, ? FROM queue WHERE id IN (\(list)) ORDER BY id LIMIT ?
            """,
          arguments: [reason, deadLetteredAt] + StatementArguments(chunk) + [room])
        let kept = db.changesCount
        try db.execute(sql: "DELETE FROM queue WHERE id IN (\(list))", arguments: StatementArguments(chunk))
        let removed = db.changesCount
        outcome.kept += kept
        outcome.dropped += removed - kept
        return removed
      }
      if outcome.dropped > 0 { try DurableQueueSchema.add(outcome.dropped, to: .deadLettersDropped, db) }
      return outcome
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
  /// - Throws: ``PersistenceError`` of kind `PersistenceError.Kind.capacityExceeded` when they would take the queue
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

/// What ``DurableQueue/deadLetter(_:reason:)`` did with the elements it took out of delivery.
public struct DeadLettering: Sendable, Hashable {
  /// Elements now kept as dead letters.
  public var kept: Int
  /// Elements that left delivery without being kept: the dead letters were at their capacity.
  public var dropped: Int

  /// An outcome with these counts.
  public init(kept: Int, dropped: Int) {
    self.kept = kept
    self.dropped = dropped
  }

  /// Every element taken out of delivery, kept or not.
  public var moved: Int { kept + dropped }
}
