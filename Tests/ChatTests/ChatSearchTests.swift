import Foundation
import GRDB
import Persistence
import Testing

@testable import Chat

/// Full-text search of a real store: words and prefixes in English and Korean, whatever the case and diacritics;
/// the best match first and the newest among equals; an edit found by its new text, a deletion never found; no query
/// read as an operator.
@Suite("Chat search")
struct ChatSearchTests {
  let store: ChatStore

  init() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-search-\(UUID().uuidString)")
    store = try ChatStore(url: directory.appendingPathComponent("chat.sqlite"))
  }

  static func message(_ number: Int, _ text: String, in conversation: String = "c1") -> Message {
    Message(
      id: "m\(number)", clientMessageID: nil, conversationID: conversation, senderID: "ann", text: text,
      createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(number)), version: number)
  }

  func found(_ query: String, in conversation: String? = nil) async throws -> [String] {
    try await store.search(query, in: conversation, limit: 20).compactMap(\.message.id)
  }

  @Test("Words and prefixes, in English and Korean, whatever the case and diacritics")
  func wordsAndPrefixes() async throws {
    try await store.upsert([
      Self.message(1, "The deploy went fine"),
      Self.message(2, "안녕하세요, 서울에서 만나요"),
      Self.message(3, "Café at noon? DEPLOYMENT first"),
      Self.message(4, "nothing to see"),
    ])
    let deploy = try await found("deploy")
    #expect(Set(deploy) == ["m1", "m3"], "\(deploy)")
    let shouted = try await found("DEPLOY")
    #expect(shouted == deploy)
    #expect(try await found("deployment") == ["m3"])
    #expect(try await found("cafe") == ["m3"], "without diacritics")
    #expect(try await found("안녕") == ["m2"], "a Korean prefix")
    #expect(try await found("서울") == ["m2"], "a Korean word with its particle")
    #expect(try await found("deploy noon") == ["m3"], "every word")
    #expect(try await found("absent").isEmpty)
  }

  @Test("The best match first, the newest first among equals; one conversation or all")
  func ranking() async throws {
    try await store.upsert([
      Self.message(1, "lunch"), Self.message(2, "lunch", in: "c2"), Self.message(3, "lunch"),
      Self.message(4, "lunch lunch lunch, all about lunch"),
    ])
    let all = try await found("lunch")
    #expect(all.first == "m4", "the best match first: \(all)")
    #expect(Array(all.dropFirst()) == ["m3", "m2", "m1"], "equals newest first: \(all)")
    #expect(try await found("lunch", in: "c2") == ["m2"])
  }

  @Test("Equals read newest first by their time, not by when the store got them: a catch-up stores older ones last")
  func newestByTime() async throws {
    try await store.upsert([Self.message(5, "standup notes"), Self.message(6, "standup moved")])
    try await store.upsert([Self.message(2, "standup at ten"), Self.message(1, "standup room")])
    #expect(try await found("standup") == ["m6", "m5", "m2", "m1"])
    var later = Self.message(1, "standup room")
    later.createdAt = Date(timeIntervalSince1970: 1_700_000_100)
    later.version = 7
    try await store.upsert([later])
    #expect(try await found("standup") == ["m1", "m6", "m5", "m2"], "a new time is a new place")
  }

  @Test("Messages of one millisecond each get a search key of their own, from the store's insert or from the trigger")
  func keysWithinAMillisecond() async throws {
    let time = Date(timeIntervalSince1970: 1_700_000_000)
    func message(_ id: String) -> Message {
      Message(
        id: id, clientMessageID: nil, conversationID: "c1", senderID: "ann", text: "same instant", createdAt: time)
    }
    try await store.upsert([message("m2"), message("m1")])
    try await store.upsert([message("m3")])
    // An insert that names no key, as none in the store does now, gets the next one from the insert trigger.
    try await store.write("store a message without a search key") { db in
      try db.execute(
        sql: """
          INSERT INTO message (serverID, conversationID, senderID, text, images, createdAt, sortKey, state)
          VALUES ('m0', 'c1', 'ann', 'same instant', '[]', 1700000000000, 'm0', 'sent')
          """)
    }
    let keys = try await store.read("read the search keys") { db in
      try Row.fetchAll(db, sql: "SELECT serverID, searchKey FROM message ORDER BY rowid").map {
        ($0["serverID"] as String, $0["searchKey"] as Int64?)
      }
    }
    let base: Int64 = 1_700_000_000_000 << 20  // the millisecond's first key
    #expect(keys.map(\.0) == ["m2", "m1", "m3", "m0"])
    #expect(keys.map(\.1) == [base, base + 1, base + 2, base + 3], "one key each, in the order stored")
    #expect(try await found("instant") == ["m0", "m3", "m1", "m2"], "the latest stored first among equals")
  }

  @Test("One conversation's search finds its messages only, whatever its id's characters")
  func conversationIDs() async throws {
    let ids = ["c1", "c10", "c1-a", "대화 방", "x\"y"]
    try await store.upsert(ids.enumerated().map { Self.message($0.offset, "budget", in: $0.element) })
    for (number, id) in ids.enumerated() {
      #expect(try await found("budget", in: id) == ["m\(number)"], "\(id)")
    }
    #expect(try await found("budget", in: "c").isEmpty)
  }

  @Test("A store written before the search order gets it when opened, and finds what it held")
  func migratedStore() async throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("keel-search-\(UUID().uuidString).sqlite")
    do {
      let pool = try DatabasePool(path: url.path)
      try ChatStoreSchema.migrator.migrate(pool, upTo: "chat-v10-files")
      try await pool.write { db in
        for (number, time) in [(1, 3_000), (2, 1_000), (3, 2_000), (4, 1_000)] {
          try db.execute(
            sql: """
              INSERT INTO message (serverID, conversationID, senderID, text, images, createdAt, sortKey, state)
              VALUES (?, 'c1', 'ann', ?, '[]', ?, ?, 'sent')
              """, arguments: ["m\(number)", "retro \(number)", time, "m\(number)"])
        }
      }
      try pool.close()
    }
    let reopened = try ChatStore(url: url)
    let hits = try await reopened.search("retro", limit: 10).map(\.message.id)
    #expect(hits == ["m1", "m3", "m4", "m2"], "newest first, then by id within a millisecond: \(hits)")
    try await reopened.upsert([Self.message(9, "retro again")])
    #expect(try await reopened.search("retro", limit: 1).map(\.message.id) == ["m9"])
  }

  @Test("An excerpt marks what matched as the index read it: folded case and accents, Korean, a word split in two")
  func excerptMatches() {
    func marked(_ text: String, _ query: String) -> [String] {
      let phrases = ChatStore.searchWords(query).map(SearchText.tokens)
      let (excerpt, ranges) = SearchText.excerpt(of: text, matching: phrases)
      return ranges.map { String(excerpt[$0]) }
    }
    #expect(marked("Café CAFES and cafeteria", "cafe") == ["Café", "CAFES", "cafeteria"])
    #expect(marked("안녕하세요, 서울에서 만나요", "서울") == ["서울에서"])
    #expect(marked("I don't know, don", "don't") == ["don't"])
    #expect(marked("nothing here", "absent").isEmpty)
    let (short, _) = SearchText.excerpt(of: "  padded text  ", matching: [["text"]])
    #expect(short == "  padded text  ", "a text of a dozen words or fewer is whole")
  }

  @Test(
    "Writes index what they store before they commit, but the pending copy and the open conversation's push, which the next write or a search indexes"
  )
  func indexedAtCommit() async throws {
    func waiting() async throws -> Int {
      try await store.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM searchBacklog") ?? -1 }
    }
    try await store.upsert([Self.message(1, "alpha one"), Self.message(2, "alpha two")])
    #expect(try await waiting() == 0)
    try await store.receive(Self.message(3, "alpha pushed"), by: "bob")
    #expect(try await waiting() == 0)
    let pending = Message(
      id: nil, clientMessageID: "p1", conversationID: "c1", senderID: "bob", text: "alpha pending",
      createdAt: Date(timeIntervalSince1970: 1_700_000_100), state: .pending)
    try await store.addPending(pending)
    #expect(try await waiting() == 1, "the pending copy waits for its sent copy's write")
    try await store.upsert([Self.message(4, "alpha paged")], movingSyncPointOf: "c1")
    #expect(try await waiting() == 0, "any write that stores messages indexes what waits")
    _ = try await store.upsert(
      [Self.message(5, "alpha moved")], movingReadPositionOf: "ann", in: "c1", to: "m5", seq: 5)
    #expect(try await waiting() == 0)
    let newest = try #require(try await store.messages(in: "c1", limit: 1).last)
    let read = try store.upsertNow(
      [Self.message(6, "alpha live")], movingReadPositionOf: "ann", in: "c1", to: "m6", seq: 6,
      readingAfter: newest.position, limit: 10)
    #expect(read.inserted.map(\.id) == ["m6"])
    #expect(try await waiting() == 1, "the open conversation's push waits for its count")
    try await store.countArrival(of: Self.message(6, "alpha live"), by: "bob")
    #expect(try await waiting() == 0)
    var edited = Self.message(1, "alpha edited")
    edited.version = 9
    try await store.applyChanges([edited])
    #expect(try await waiting() == 0)
    #expect(Set(try await found("alpha")) == ["m1", "m2", "m3", "m4", "m5", "m6"])
    #expect(try await found("one").isEmpty, "an edit's old words leave the index")
    let waitingPending = Message(
      id: nil, clientMessageID: "p2", conversationID: "c1", senderID: "bob", text: "beta pending",
      createdAt: Date(timeIntervalSince1970: 1_700_000_200), state: .pending)
    try await store.addPending(waitingPending)
    #expect(try await store.search("beta", limit: 5).map(\.message.text) == ["beta pending"], "a search indexes first")
    #expect(try await waiting() == 0)
  }

  @Test("A message stored and changed in one write is found by its last text only, and the index stays whole")
  func changedBeforeIndexed() async throws {
    var final = Self.message(1, "final wording")
    final.version = 2
    try await store.upsert([Self.message(1, "first draft"), final, Self.message(2, "other words")])
    #expect(try await found("draft").isEmpty)
    #expect(try await found("final") == ["m1"])
    try await store.resetMessages(in: "c1")
    #expect(try await found("final").isEmpty)
    #expect(try await found("other").isEmpty)
    try await store.pool.write { db in
      try db.execute(sql: "INSERT INTO message_search(message_search) VALUES ('integrity-check')")
    }
  }

  @Test("An edited message is found by its text now; a deleted one never")
  func editsAndDeletions() async throws {
    try await store.upsert([Self.message(1, "old words"), Self.message(2, "secret plan")])
    var edited = Self.message(1, "new words")
    edited.version = 3
    var deleted = Self.message(2, "")
    deleted.isDeleted = true
    deleted.version = 4
    try await store.applyChanges([edited, deleted])
    #expect(try await found("old").isEmpty)
    #expect(try await found("new") == ["m1"])
    #expect(try await found("secret").isEmpty)
  }

  @Test("The excerpt shows the words around the match, and where it is")
  func excerpt() async throws {
    let long = (1...40).map { "word\($0)" }.joined(separator: " ") + " target " + "tail words here"
    try await store.upsert([Self.message(1, long)])
    let hit = try #require(try await store.search("targ", limit: 1).first)
    #expect(hit.excerpt.hasPrefix("…"), "\(hit.excerpt)")
    #expect(hit.highlights.map { String(hit.excerpt[$0]) } == ["target"])
  }

  @Test("Quotes, stars and operators are words, never syntax; a query with no word is refused")
  func noSyntax() async throws {
    try await store.upsert([Self.message(1, #"he said "OR" and NEAR(x) * 5"#)])
    for query in [#"""#, "OR", "NEAR(", "*", "\"OR\"", "-x", "a:b", "AND NOT"] {
      _ = try await store.search(query + " said", limit: 5)
    }
    #expect(try await found("OR said") == ["m1"])
    for empty in ["", "   ", "!!!", "*"] {
      await #expect(throws: Persistence.PersistenceError.self) { _ = try await store.search(empty, limit: 5) }
    }
    await #expect(throws: Persistence.PersistenceError.self) {
      _ = try await store.search(String(repeating: "a", count: 201), limit: 5)
    }
  }
}
