import Foundation
import GRDB
import Testing

@testable import Persistence

/// The queue's schema since v2 (Decision 0017): ids from a counter instead of AUTOINCREMENT, an index of released
/// elements only, and the upgrade of a file written by v1.
@Suite("DurableQueue schema", .timeLimit(.minutes(3)))
struct DurableQueueSchemaTests {
  typealias Event = DurableQueueTests.Event

  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-queue-\(UUID().uuidString)")
  var url: URL { directory.appendingPathComponent("events.sqlite") }

  func open(durability: Durability = .survivesPowerLoss) throws -> DurableQueue<Event> {
    try DurableQueue<Event>(url: url, capacity: 1_000, overflow: .rejectNew, durability: durability)
  }

  @Test("Ids are never reused: not once every element is delivered or dead-lettered, and not across reopening")
  func idsNeverReused() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    var seen: [Int64] = []
    do {
      let queue = try open()
      let first = try await queue.enqueue(contentsOf: DurableQueueTests.events("a", "b", "c")).ids
      try await queue.acknowledge(first)
      let second = try await queue.enqueue(DurableQueueTests.Event(name: "d")).ids
      try await queue.deadLetter(second, reason: "refused")
      #expect(try await queue.count() == 0)
      seen = first + second
    }
    let queue = try open()
    let third = try await queue.enqueue(DurableQueueTests.Event(name: "e")).ids
    #expect(try await queue.requeueAllDeadLetters() == 1)
    let requeued = try await queue.peek(limit: 10).map(\.id)
    let all = seen + third + requeued.filter { !third.contains($0) }
    #expect(all == all.sorted() && Set(all).count == all.count, "\(all)")
    #expect(try await queue.peek(limit: 10).map(\.element.name) == ["e", "d"])
  }

  @Test("A file written by v1 keeps its elements, attempts, dead letters and counters; new ids start above its own")
  func upgradesVersionOne() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    try Self.writeVersionOneFile(at: url)
    let queue = try open()
    let items = try await queue.peek(limit: 10, now: Date(timeIntervalSince1970: 2_000_000_000))
    #expect(items.map(\.id) == [3, 5])
    #expect(items.map(\.element.name) == ["c", "e"])
    #expect(items.map(\.attempts) == [2, 0])
    #expect(items[0].notBefore == Date(timeIntervalSince1970: 1_700_000_060) && items[1].notBefore == nil)
    let statistics = try await queue.statistics()
    #expect(statistics.pending == 2 && statistics.deadLetters == 1 && statistics.dropped == 4)
    #expect(try await queue.nextNotBefore() == Date(timeIntervalSince1970: 0), "e is due now")
    // v1's sequence reached 7 (6 and 7 were delivered), and dead letter 4 keeps its id: the next id is 8.
    #expect(try await queue.enqueue(DurableQueueTests.Event(name: "f")).ids == [8])
    #expect(try await queue.deadLetters(limit: 10).map(\.id) == [4])
    try await queue.integrityCheck()
  }

  @Test("nextNotBefore: nil when empty, the epoch while any element was never released, else the earliest retry")
  func nextNotBefore() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let queue = try open()
    #expect(try await queue.nextNotBefore() == nil)
    let ids = try await queue.enqueue(contentsOf: DurableQueueTests.events("a", "b")).ids
    #expect(try await queue.nextNotBefore() == Date(timeIntervalSince1970: 0))
    try await queue.release([ids[0]], retryAt: Date(timeIntervalSince1970: 500))
    #expect(try await queue.nextNotBefore() == Date(timeIntervalSince1970: 0), "b was never released")
    try await queue.release([ids[1]], retryAt: Date(timeIntervalSince1970: 300))
    #expect(try await queue.nextNotBefore() == Date(timeIntervalSince1970: 300))
    try await queue.release([ids[0]], retryAt: Date(timeIntervalSince1970: -10))
    #expect(try await queue.nextNotBefore() == Date(timeIntervalSince1970: -10), "a date before 1970 is earlier")
  }

  @Test("An enqueue of one element writes two pages to the log, not four (no sequence page, no index entry)")
  func pagesPerEnqueue() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let queue = try open(durability: .survivesCrash)
    try queue.enqueueNow(encoded: [Data(#"{"name":"warm-up","value":0}"#.utf8)])
    _ = try await queue.pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
    let count = 100
    for index in 0..<count {
      try queue.enqueueNow(encoded: [Data(#"{"name":"e\#(index)","value":0}"#.utf8)])
    }
    // A passive checkpoint reports how many frames (pages) the log holds; 100 small rows fill about two leaves.
    let frames = try await queue.pool.writeWithoutTransaction { db in
      try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")?[1] as Int?
    }
    #expect(try #require(frames) <= 2 * count + 10, "v1 wrote four pages an enqueue")
  }

  /// A queue file as v1 left it: pending 3 (released twice) and 5, dead letter 4, 6 and 7 delivered (the sequence
  /// at 7), four dropped.
  static func writeVersionOneFile(at url: URL) throws {
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let database = try DatabaseQueue(path: url.path)
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
          INSERT INTO grdb_migrations VALUES ('v1');
          CREATE TABLE queue (
            id INTEGER PRIMARY KEY AUTOINCREMENT, payload BLOB NOT NULL, enqueuedAt REAL NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0, notBefore REAL NOT NULL DEFAULT 0);
          CREATE INDEX queue_notBefore ON queue(notBefore);
          CREATE TABLE deadLetter (
            id INTEGER PRIMARY KEY, payload BLOB NOT NULL, enqueuedAt REAL NOT NULL, attempts INTEGER NOT NULL,
            reason TEXT NOT NULL, deadLetteredAt REAL NOT NULL);
          CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID;
          CREATE TRIGGER queue_counted_insert AFTER INSERT ON queue
            BEGIN UPDATE meta SET value = value + 1 WHERE key = 'pending'; END;
          CREATE TRIGGER queue_counted_delete AFTER DELETE ON queue
            BEGIN UPDATE meta SET value = value - 1 WHERE key = 'pending'; END;
          INSERT INTO meta VALUES ('pending', 0), ('dropped', 4), ('rejected', 0), ('deadLettersDropped', 0);
          """)
      for (id, name) in [(3, "c"), (5, "e"), (6, "f"), (7, "g")] {
        try db.execute(
          sql: "INSERT INTO queue (id, payload, enqueuedAt) VALUES (?, ?, 1700000000)",
          arguments: [id, Data(#"{"name":"\#(name)","value":0}"#.utf8)])
      }
      try db.execute(sql: "UPDATE queue SET attempts = 2, notBefore = 1700000060 WHERE id = 3")
      try db.execute(sql: "DELETE FROM queue WHERE id IN (6, 7)")
      try db.execute(
        sql: """
          INSERT INTO deadLetter VALUES (4, CAST('{"name":"d","value":0}' AS BLOB), 1700000000, 3, 'refused', 1700000100)
          """)
    }
    try database.close()
  }
}
