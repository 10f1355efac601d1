import Chat
import Foundation
import GRDB

/// The memory of an open conversation: the resident memory that opening ``ChatBenchFixture/memoryChannelCount``
/// conversations adds, per conversation, each holding 10,000 stored messages (1,000 in `--quick`), live on the socket.
/// Goal: 2 MiB at most. The store's page cache is warmed before the measurement (each conversation's newest page read
/// once), so the row counts what a conversation itself keeps (its window, its sync, its snapshot), not SQLite's cache.
///
/// The peer is what an app keeps by hand for an open conversation: the newest page of 50 read with plain GRDB from
/// the same number of rows, decoded, held in an array.
enum ChatMemoryBenchmarks {
  static func comparisons(_ fixture: ChatBenchFixture, quick: Bool) -> [Comparison] {
    let stored = quick ? 1_000 : 10_000
    return [
      Comparison(
        name: "domain.chat.memoryPerConversation", unit: "KiB", better: .lower, target: 2_048, rounds: (1, 3),
        keel: { try await keelMemory(fixture, stored: stored) },
        peer: { try await peerMemory(fixture, stored: stored) },
        finish: { await fixture.stop() })
    ]
  }

  /// Messages `start` to `start + count` of `conversation`, from Ann, a tenth of a second apart and all older than
  /// `newest`.
  private static func older(_ count: Int, than newest: Message, in conversation: String, from start: Int) -> [Message] {
    (start..<start + count).map { number in
      Message(
        id: "\(conversation)-old-\(number)", clientMessageID: nil, conversationID: conversation, senderID: "ann",
        text: "message number \(number), about as long as a chat line usually is",
        createdAt: newest.createdAt.addingTimeInterval(-100_000 + Double(number) / 10))
    }
  }

  private static func keelMemory(_ fixture: ChatBenchFixture, stored count: Int) async throws -> Double {
    let running = try await fixture.start()
    let directory = try ChatBenchFixture.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let chat = try ChatService(
      baseURL: running.baseURL, sessions: running.bob, socketTransport: running.socket, directory: directory,
      clock: ContinuousClock())
    let store = try chat.store
    for (channel, newest) in running.memoryChannels {
      for start in stride(from: 0, to: count, by: 1_000) {
        try await store.upsert(older(min(1_000, count - start), than: newest, in: channel, from: start))
      }
      try await store.upsert([newest])
      try await store.setSyncPoint(newest.id ?? "", in: channel)
      _ = try await store.messages(in: channel, limit: 50)
    }
    // The socket and the service's first conversation cost what the first open costs once: not per conversation.
    let first = try await chat.open(running.latencyChannel)
    guard await first.caughtUp() == .live else {
      throw BenchmarkError(description: "the first conversation is not live")
    }
    let before = residentKiB()
    var conversations: [ChatConversation] = []
    for (channel, _) in running.memoryChannels {
      let conversation = try await chat.open(channel)
      guard await conversation.caughtUp() == .live else {
        throw BenchmarkError(description: "conversation \(channel) is not live")
      }
      var snapshots = conversation.snapshots().makeAsyncIterator()
      guard let shown = await snapshots.next(), shown.messages.count == 50 else {
        throw BenchmarkError(description: "conversation \(channel) does not show its newest 50")
      }
      conversations.append(conversation)
    }
    let after = residentKiB()
    for conversation in conversations { await conversation.close() }
    await first.close()
    await chat.shutDown()
    return Double(after - before) / Double(conversations.count)
  }

  /// A message as the peer keeps it.
  private struct PeerMessage: Sendable {
    let id: String
    let senderID: String
    let text: String
    let createdAt: Int64
  }

  private static func peerMemory(_ fixture: ChatBenchFixture, stored count: Int) async throws -> Double {
    let running = try await fixture.start()
    let directory = try ChatBenchFixture.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let database = try DatabasePool(path: directory.appendingPathComponent("peer.sqlite").path)
    try await database.write { db in
      try db.execute(
        sql: """
          CREATE TABLE message (id TEXT PRIMARY KEY, conversationID TEXT, senderID TEXT, text TEXT, createdAt INTEGER);
          CREATE INDEX message_order ON message(conversationID, createdAt, id);
          """)
    }
    for (channel, newest) in running.memoryChannels {
      for start in stride(from: 0, to: count, by: 1_000) {
        let batch = older(min(1_000, count - start), than: newest, in: channel, from: start) + [newest]
        try await database.write { db in
          for message in batch {
            try db.execute(
              sql: "INSERT OR REPLACE INTO message VALUES (?, ?, ?, ?, ?)",
              arguments: [
                message.id, channel, message.senderID, message.text,
                Int64(message.createdAt.timeIntervalSince1970 * 1_000),
              ])
          }
        }
      }
    }
    func newestPage(_ channel: String) throws -> [PeerMessage] {
      try database.read { db in
        try Row.fetchAll(
          db,
          sql: """
            SELECT * FROM (SELECT * FROM message WHERE conversationID = ? ORDER BY createdAt DESC, id DESC LIMIT 50)
            ORDER BY createdAt, id
            """, arguments: [channel]
        ).map { row in
          PeerMessage(id: row["id"], senderID: row["senderID"], text: row["text"], createdAt: row["createdAt"])
        }
      }
    }
    for (channel, _) in running.memoryChannels { _ = try newestPage(channel) }
    let before = residentKiB()
    var windows: [[PeerMessage]] = []
    for (channel, _) in running.memoryChannels {
      let page = try newestPage(channel)
      guard page.count == 50 else { throw BenchmarkError(description: "the peer read \(page.count) of 50") }
      windows.append(page)
    }
    let after = residentKiB()
    try database.close()
    return Double(after - before) / Double(windows.count)
  }
}
