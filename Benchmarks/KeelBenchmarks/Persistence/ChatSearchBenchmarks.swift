import Chat
import Foundation
import GRDB
import KeelConcurrency
import Persistence

/// Searching the chat store: the median time of one search of 100,000 stored messages (10,000 in `--quick`), a word
/// or a word's start, ranked, the newest first among equals, the best 20 with an excerpt. The peer is the search an
/// app writes by hand on plain GRDB: the same rows, an FTS5 index of the same tokenizer kept by a trigger, ranked by
/// FTS5's `bm25`, with `snippet`'s excerpt. (Keel ranks without `bm25`'s length weight, from the index alone:
/// Documentation/Decisions/0023.) Goal: p50 ≤ 5 ms.
enum ChatSearchBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] {
    let count = quick ? 10_000 : 100_000
    let stores = Stores(count: count)
    return [
      Comparison(
        name: "persistence.chatStore.search.p50", unit: "ms", better: .lower, target: 5,
        keel: { try await keel(stores) }, peer: { try await peer(stores) }, finish: { await stores.remove() })
    ]
  }

  /// A vocabulary of made-up words, and a few Korean ones, so that every query has hits of varied rank.
  static let words: [String] = {
    let syllables = ["ka", "lo", "mi", "ne", "su", "ra", "ti", "po", "de", "vy", "qu", "zen"]
    var words: [String] = []
    for first in syllables {
      for second in syllables { for third in ["", "n", "s", "ly"] { words.append(first + second + third) } }
    }
    return words + ["안녕하세요", "서울에서", "회의", "배포", "점심"]
  }()

  /// Message `number`'s text: eight to sixteen words of the vocabulary, the same on both sides.
  static func text(_ number: Int) -> String {
    var generator = UInt64(truncatingIfNeeded: number) &* 0x9E37_79B9_7F4A_7C15 | 1
    let length = 8 + Int(number % 9)
    return (0..<length).map { _ in
      generator ^= generator << 13
      generator ^= generator >> 7
      generator ^= generator << 17
      return words[Int(generator % UInt64(words.count))]
    }.joined(separator: " ")
  }

  /// The queries, in order: whole words and words' starts.
  static let queries: [String] = (0..<100).map { index in
    let word = words[(index * 37) % words.count]
    return index % 2 == 0 ? word : String(word.prefix(3))
  }

  /// The two databases, filled on first use and shared by every round.
  actor Stores {
    let count: Int
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "keel-bench-search-\(UUID().uuidString)")
    private var keelStore: ChatStore?
    private var peerDatabase: DatabasePool?

    init(count: Int) { self.count = count }

    func keel() async throws -> ChatStore {
      if let keelStore { return keelStore }
      let store = try ChatStore(url: directory.appendingPathComponent("keel.sqlite"))
      for start in stride(from: 0, to: count, by: 1_000) {
        try await store.upsert(
          (start..<min(count, start + 1_000)).map { number in
            Message(
              id: "m\(number)", clientMessageID: nil, conversationID: "c\(number % 10)", senderID: "ann",
              text: text(number), createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(number)))
          })
      }
      keelStore = store
      return store
    }

    func peer() throws -> DatabasePool {
      if let peerDatabase { return peerDatabase }
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      let database = try DatabasePool(path: directory.appendingPathComponent("peer.sqlite").path)
      try database.write { db in
        try db.execute(
          sql: """
            CREATE TABLE message (rowid INTEGER PRIMARY KEY, serverID TEXT UNIQUE, conversationID TEXT NOT NULL,
              senderID TEXT NOT NULL, text TEXT NOT NULL, createdAt INTEGER NOT NULL);
            CREATE VIRTUAL TABLE message_search USING fts5(
              text, content='message', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2');
            CREATE TRIGGER message_search_insert AFTER INSERT ON message BEGIN
              INSERT INTO message_search(rowid, text) VALUES (new.rowid, new.text);
            END;
            """)
        for number in 0..<count {
          try db.execute(
            sql: "INSERT INTO message (serverID, conversationID, senderID, text, createdAt) VALUES (?, ?, 'ann', ?, ?)",
            arguments: ["m\(number)", "c\(number % 10)", text(number), 1_700_000_000_000 + number * 1_000])
        }
      }
      peerDatabase = database
      return database
    }

    func remove() {
      keelStore = nil
      peerDatabase = nil
      try? FileManager.default.removeItem(at: directory)
    }
  }

  private static func keel(_ stores: Stores) async throws -> Double {
    let store = try await stores.keel()
    var samples: [Double] = []
    var found = 0
    for query in queries {
      let start = ContinuousClock.now
      found += try await store.search(query, limit: 20).count
      samples.append(nanoseconds(start.duration(to: .now)) / 1e6)
    }
    guard found > 0 else { throw BenchmarkError(description: "keel found nothing") }
    return LatencyRounds.percentile(0.5, of: samples)
  }

  private static func peer(_ stores: Stores) async throws -> Double {
    let database = try await stores.peer()
    var samples: [Double] = []
    var found = 0
    for query in queries {
      let start = ContinuousClock.now
      let match = "\"\(query)\"*"
      // The rows read into values, as Keel's search reads them into hits (and a `Row` cannot leave the read).
      let hits = try await database.read { db in
        try Row.fetchAll(
          db,
          sql: """
            SELECT message.*, snippet(message_search, 0, '[', ']', '…', 12) AS excerpt
            FROM message_search JOIN message ON message.rowid = message_search.rowid
            WHERE message_search MATCH ? ORDER BY bm25(message_search), message.createdAt DESC LIMIT 20
            """, arguments: [match]
        ).map { row -> (String, String, Int64) in (row["serverID"], row["excerpt"], row["createdAt"]) }
      }
      found += hits.count
      samples.append(nanoseconds(start.duration(to: .now)) / 1e6)
    }
    guard found > 0 else { throw BenchmarkError(description: "the peer found nothing") }
    return LatencyRounds.percentile(0.5, of: samples)
  }
}
