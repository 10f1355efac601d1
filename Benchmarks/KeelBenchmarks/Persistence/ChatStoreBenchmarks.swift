import Chat
import Foundation
import GRDB
import Persistence

/// The chat store's rows: storing messages and reading pages, against the same table written and read with plain
/// GRDB statements (a WAL `DatabasePool` too, with the same ordering index).
///
/// - `insert`: 1,000 messages (5,000 in a full run) upserted 100 per call. Keel's insert yields to a stored copy with
///   the same server id or client message id (what makes an upsert idempotent), gives each message its search key and
///   indexes it for search, and checks its size limit after each call; the peer inserts blindly, with no search.
/// - `pageRead`: pages of 50 before a random message of a 10,000-message conversation, oldest first, as a screen
///   scrolling back reads them.
enum ChatStoreBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] {
    let inserted = quick ? 1_000 : 5_000
    let reads = quick ? 200 : 1_000
    return [
      Comparison(
        name: "persistence.chatStore.insert", unit: "messages/s", better: .higher, target: nil,
        keel: { try await keelInsert(inserted) }, peer: { try await peerInsert(inserted) }),
      Comparison(
        name: "persistence.chatStore.pageRead", unit: "pages/s", better: .higher, target: nil,
        keel: { try await keelPages(reads) }, peer: { try await peerPages(reads) }),
    ]
  }

  static let conversation = "c1"

  static func message(_ number: Int) -> Message {
    Message(
      id: "m\(number)", clientMessageID: "client-\(number)", conversationID: conversation, senderID: "ann",
      text: "message number \(number), about as long as a chat line usually is",
      createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(number) / 1_000))
  }

  private static func keelInsert(_ count: Int) async throws -> Double {
    let directory = try ChatBenchFixture.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try ChatStore(url: directory.appendingPathComponent("chat.sqlite"))
    let batches = stride(from: 0, to: count, by: 100).map { start in (start..<start + 100).map(message) }
    let clock = ContinuousClock()
    let start = clock.now
    for batch in batches { try await store.upsert(batch) }
    let elapsed = start.duration(to: clock.now)
    guard try await store.messageCount(in: conversation) == count else {
      throw BenchmarkError(description: "keel stored the wrong number of messages")
    }
    return Double(count) / (nanoseconds(elapsed) / 1e9)
  }

  private static func peerDatabase(_ directory: URL) throws -> DatabasePool {
    let database = try DatabasePool(path: directory.appendingPathComponent("peer.sqlite").path)
    try database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE message (rowid INTEGER PRIMARY KEY, serverID TEXT UNIQUE, clientMessageID TEXT,
            conversationID TEXT NOT NULL, senderID TEXT NOT NULL, text TEXT NOT NULL, images TEXT NOT NULL,
            createdAt INTEGER NOT NULL, sortKey TEXT NOT NULL, state TEXT NOT NULL);
          CREATE INDEX message_order ON message(conversationID, createdAt, sortKey);
          """)
    }
    return database
  }

  private static func insert(_ messages: [Message], into db: Database) throws {
    for message in messages {
      try db.execute(
        sql: """
          INSERT INTO message (serverID, clientMessageID, conversationID, senderID, text, images, createdAt, sortKey,
            state) VALUES (?, ?, ?, ?, ?, '[]', ?, ?, 'sent')
          """,
        arguments: [
          message.id, message.clientMessageID, message.conversationID, message.senderID, message.text,
          Int64(message.createdAt.timeIntervalSince1970 * 1_000), message.id,
        ])
    }
  }

  private static func peerInsert(_ count: Int) async throws -> Double {
    let directory = try ChatBenchFixture.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let database = try peerDatabase(directory)
    let batches = stride(from: 0, to: count, by: 100).map { start in (start..<start + 100).map(message) }
    let clock = ContinuousClock()
    let start = clock.now
    for batch in batches { try await database.write { try insert(batch, into: $0) } }
    let elapsed = start.duration(to: clock.now)
    return Double(count) / (nanoseconds(elapsed) / 1e9)
  }

  /// The positions the page reads start before: the same pseudo-random ones on both sides.
  private static func anchors(_ reads: Int) -> [Int] {
    var generator = UInt64(42)
    return (0..<reads).map { _ in
      generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return 50 + Int((generator >> 33) % 9_950)
    }
  }

  private static func keelPages(_ reads: Int) async throws -> Double {
    let directory = try ChatBenchFixture.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try ChatStore(url: directory.appendingPathComponent("chat.sqlite"))
    for start in stride(from: 0, to: 10_000, by: 1_000) { try await store.upsert((start..<start + 1_000).map(message)) }
    let positions = anchors(reads).map { message($0).position }
    let clock = ContinuousClock()
    let start = clock.now
    var read = 0
    for position in positions { read += try await store.messages(in: conversation, before: position, limit: 50).count }
    let elapsed = start.duration(to: clock.now)
    guard read == reads * 50 else { throw BenchmarkError(description: "keel read \(read) messages") }
    return Double(reads) / (nanoseconds(elapsed) / 1e9)
  }

  private static func peerPages(_ reads: Int) async throws -> Double {
    let directory = try ChatBenchFixture.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let database = try peerDatabase(directory)
    try await database.write { db in try insert((0..<10_000).map(message), into: db) }
    let positions = anchors(reads).map { message($0) }
    let clock = ContinuousClock()
    let start = clock.now
    var read = 0
    for anchor in positions {
      let time = Int64(anchor.createdAt.timeIntervalSince1970 * 1_000)
      let key = anchor.id ?? ""
      let rows = try database.read { db in
        try Row.fetchAll(
          db,
          sql: """
            SELECT * FROM (SELECT * FROM message WHERE conversationID = ? AND (createdAt < ? OR (createdAt = ? AND
              sortKey < ?)) ORDER BY createdAt DESC, sortKey DESC LIMIT 50) ORDER BY createdAt, sortKey
            """, arguments: [conversation, time, time, key])
      }
      read += rows.count
    }
    let elapsed = start.duration(to: clock.now)
    guard read == reads * 50 else { throw BenchmarkError(description: "the peer read \(read) messages") }
    return Double(reads) / (nanoseconds(elapsed) / 1e9)
  }
}
