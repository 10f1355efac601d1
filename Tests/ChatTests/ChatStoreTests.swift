import Foundation
import GRDB
import Persistence
import Testing

@testable import Chat

/// REQUIREMENTS C3, C5: the chat's local store on a real SQLite file: idempotent upserts, (time, id) order in pages,
/// pending messages that become sent, lists replaced as the server lists them, eviction by last view, and a damaged
/// or foreign file set aside, never a crash.
@Suite("ChatStore", .timeLimit(.minutes(3)))
struct ChatStoreTests {
  static let start = Date(timeIntervalSince1970: 1_700_000_000)

  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-chat-\(UUID().uuidString)")
  var url: URL { directory.appendingPathComponent("chat.sqlite") }

  func open(maxSize: Int64 = 256_000_000) throws -> ChatStore { try ChatStore(url: url, maxSize: maxSize) }

  /// The message `n` of `conversation`, sent at `start + n` seconds.
  static func message(_ n: Int, in conversation: String = "general", text: String? = nil) -> Message {
    Message(
      id: "m\(n)", clientMessageID: "c\(n)", conversationID: conversation, senderID: "alice",
      text: text ?? "message \(n)", createdAt: start.addingTimeInterval(Double(n)))
  }

  @Test("A message that arrives twice, by socket and by catch-up, or duplicated, is stored once")
  func idempotent() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try open()
    #expect(try await store.upsert([Self.message(1), Self.message(2)]).map(\.id) == ["m1", "m2"])
    #expect(try await store.upsert([Self.message(2), Self.message(2), Self.message(3)]).map(\.id) == ["m3"])
    var withoutClientID = Self.message(3, text: "edited")
    withoutClientID.clientMessageID = nil
    #expect(try await store.upsert([withoutClientID]).isEmpty)
    let stored = try await store.messages(in: "general", limit: 10)
    #expect(stored.map(\.id) == ["m1", "m2", "m3"])
    #expect(stored.last?.text == "edited")
    #expect(stored.last?.clientMessageID == "c3", "a copy without a client id keeps the stored one")
    #expect(try await store.messageCount(in: "general") == 3)
  }

  @Test("A pending message becomes sent in place: one row, the server's id and time, a new position")
  func pendingBecomesSent() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try open()
    try await store.upsert([Self.message(1), Self.message(5)])
    let pending = Message(
      id: nil, clientMessageID: "local-1", conversationID: "general", senderID: "me", text: "on its way",
      images: ["/tmp/photo.png"], createdAt: Self.start.addingTimeInterval(9), state: .pending)
    #expect(try await store.upsert([pending]).count == 1)
    #expect(try await store.messages(in: "general", limit: 10).map(\.text).last == "on its way")
    #expect(try await store.latestSentMessage(in: "general")?.id == "m5", "a pending message is no catch-up cursor")

    var sent = pending
    (sent.id, sent.state, sent.createdAt, sent.images) = ("m3", .sent, Self.start.addingTimeInterval(3), ["/images/x"])
    #expect(try await store.upsert([sent]).isEmpty)
    let stored = try await store.messages(in: "general", limit: 10)
    #expect(stored.map(\.id) == ["m1", "m3", "m5"])
    #expect(stored[1].clientMessageID == "local-1" && stored[1].state == .sent && stored[1].images == ["/images/x"])
    #expect(try await store.message(clientMessageID: "local-1", in: "general", from: "me")?.id == "m3")
    #expect(try await store.message(clientMessageID: "local-1", in: "general", from: "alice") == nil)

    // A late failed copy of the sent message (the push came first, then the send timed out) changes nothing.
    var late = pending
    (late.state, late.failureReason) = (.failed, "timed out")
    #expect(try await store.upsert([late]).isEmpty)
    #expect(try await store.message(clientMessageID: "local-1", in: "general", from: "me")?.state == .sent)
  }

  @Test("Another member's message with the same client id is another message: it never takes over one stored")
  func clientIDsAreTheSenders() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try open()
    try await store.upsert([Self.message(5)])  // alice's, client id c5
    var mallory = Self.message(9, in: "elsewhere")
    (mallory.senderID, mallory.clientMessageID) = ("mallory", "c5")
    var sameRoom = Self.message(10)
    (sameRoom.senderID, sameRoom.clientMessageID) = ("mallory", "c5")
    #expect(try await store.upsert([mallory, sameRoom]).map(\.id) == ["m9", "m10"])
    #expect(try await store.messages(in: "general", limit: 10).map(\.id) == ["m5", "m10"])
    #expect(try await store.messages(in: "general", limit: 10).first?.senderID == "alice")
  }

  @Test("A time outside 1970 to 9999 is refused before anything is written, never a trap")
  func outlandishTimes() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try open()
    for seconds in [1e300, -1, Double.nan, Double.infinity] {
      var odd = Self.message(1)
      odd.createdAt = Date(timeIntervalSince1970: seconds)
      do {
        try await store.upsert([Self.message(2), odd])
        Issue.record("a time of \(seconds) s was stored")
      } catch let error as Persistence.PersistenceError {
        #expect(error.kind == .invalidInput)
      }
    }
    #expect(try await store.messageCount(in: "general") == 0)
    try await store.touch("general", at: Date(timeIntervalSince1970: .nan))
  }

  @Test("Pages read in (time, id) order: the newest first page, older pages before a position, newer after one")
  func paging() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try open()
    try await store.upsert((1...25).reversed().map { Self.message($0) })
    // Two messages of the same millisecond order by id.
    var twinA = Self.message(30)
    var twinB = Self.message(30)
    (twinA.id, twinA.clientMessageID, twinB.id, twinB.clientMessageID) = ("m30b", "cb", "m30a", "ca")
    var elsewhere = Self.message(1, in: "random")
    (elsewhere.id, elsewhere.clientMessageID) = ("r1", "rc1")
    try await store.upsert([twinA, twinB, elsewhere])

    let newest = try await store.messages(in: "general", limit: 10)
    #expect(newest.map(\.id) == (18...25).map { "m\($0)" } + ["m30a", "m30b"])
    let older = try await store.messages(in: "general", before: newest[0].position, limit: 10)
    #expect(older.map(\.id) == (8...17).map { "m\($0)" })
    let oldest = try await store.messages(in: "general", before: older[0].position, limit: 10)
    #expect(oldest.map(\.id) == (1...7).map { "m\($0)" })
    let after = try await store.messages(in: "general", after: Self.message(24).position, limit: 2)
    #expect(after.map(\.id) == ["m25", "m30a"])
    #expect(try await store.latestSentMessage(in: "general")?.id == "m30b")
    #expect(try await store.latestSentMessage(in: "nowhere") == nil)
  }

  @Test("Lists are replaced as the server lists them; a conversation gone takes its sent messages, not pending ones")
  func lists() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try open()
    try await store.replaceWorkspaces([
      .init(id: "w2", name: "Beta", ownerID: "bob"), .init(id: "w1", name: "Alpha", ownerID: "me"),
    ])
    try await store.replaceWorkspaces([.init(id: "w1", name: "Alpha", ownerID: "me")])
    #expect(try await store.workspaces().map(\.id) == ["w1"])

    let general = Conversation(
      id: "general", workspaceID: "w1", kind: .channel, name: "general", joined: true)
    let random = Conversation(id: "random", workspaceID: "w1", kind: .channel, name: "random", joined: false)
    let dm = Conversation(id: "dm-bob", workspaceID: "w1", kind: .directMessage, name: "bob", joined: true)
    try await store.replaceConversations([random, general], in: "w1", kind: .channel)
    try await store.replaceConversations([dm], in: "w1", kind: .directMessage)
    #expect(try await store.conversations(in: "w1").map(\.id) == ["dm-bob", "general", "random"])
    #expect(try await store.conversations(in: "w1", kind: .channel).map(\.id) == ["general", "random"])

    var pending = Self.message(9, in: "random")
    (pending.id, pending.state) = (nil, .pending)
    try await store.upsert([Self.message(1, in: "random"), pending])
    try await store.replaceMembers([.init(id: "bob", nickname: "Bob")], of: .conversation("random"))
    try await store.replaceConversations([general], in: "w1", kind: .channel)
    #expect(try await store.conversation("random") == nil)
    #expect(try await store.messages(in: "random", limit: 10).map(\.state) == [.pending])
    #expect(try await store.members(of: .conversation("random")).isEmpty)
    #expect(try await store.conversations(in: "w1", kind: .directMessage).map(\.id) == ["dm-bob"])
  }

  @Test("Reading marks the unread count 0 and keeps the pointer; a refresh keeps when it was viewed and read")
  func readPointers() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try open()
    var general = Conversation(
      id: "general", workspaceID: "w1", kind: .channel, name: "general", joined: true, unreadCount: 4)
    try await store.upsert([general])
    try await store.markRead("general", upTo: "m4")
    #expect(try await store.conversation("general")?.unreadCount == 0)
    general.name = "General"
    general.unreadCount = 1
    try await store.upsert([general])
    #expect(try await store.conversation("general")?.name == "General")
    #expect(try await store.lastReadMessageID(in: "general") == "m4")
    try await store.replaceMembers(
      [.init(id: "zed", nickname: "Zed"), .init(id: "amy", nickname: "Amy")], of: .workspace("w1"))
    #expect(try await store.members(of: .workspace("w1")).map(\.id) == ["amy", "zed"])
  }

  @Test("A pushed message counts unread once, with the message; the user's own leaves nothing unread")
  func pushedMessagesCount() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try open()
    try await store.upsert([
      Conversation(id: "general", workspaceID: "w1", kind: .channel, name: "general", joined: true)
    ])
    #expect(try await store.receive(Self.message(1), by: "bob"))
    #expect(try await !store.receive(Self.message(1), by: "bob"), "pushed twice")
    #expect(try await store.receive(Self.message(2), by: "bob"))
    #expect(try await store.conversation("general")?.unreadCount == 2)
    var own = Self.message(3)
    own.senderID = "bob"
    try await store.upsert([own])  // the outbox stored it first
    #expect(try await !store.receive(own, by: "bob"))
    #expect(try await store.conversation("general")?.unreadCount == 0)
    #expect(try await store.lastReadMessageID(in: "general") == "m3")
  }

  @Test("Every write a list shows is signalled, a list's own tables too; a stale answer is not written")
  func listChanges() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try open()
    var changes = try await store.changes().makeAsyncIterator()
    try await store.upsert([Workspace(id: "w1", name: "Keel", ownerID: "ann")])
    #expect(await changes.next() != nil, "a workspace (no rowid: the write says so itself)")
    try await store.replaceMembers([Member(id: "ann", nickname: "ann")], of: .workspace("w1"))
    #expect(await changes.next() != nil, "a member")
    #expect(try await store.receive(Self.message(1), by: "bob"))
    #expect(await changes.next() != nil, "a message")
    let written = try await store.writeLists(
      "store workspaces", ifCurrent: { false }, { db in try ChatStore.replaceWorkspaces([], db) })
    #expect(!written)
    #expect(try await store.workspaces().map(\.id) == ["w1"], "nothing written")
  }

  @Test("Over its size, the store evicts the conversations viewed least recently, never a pending message")
  func eviction() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try open(maxSize: 1 << 20)
    for (index, id) in ["old", "recent", "current"].enumerated() {
      try await store.upsert([.init(id: id, workspaceID: "w1", kind: .channel, name: id, joined: true)])
      try await store.touch(id, at: Self.start.addingTimeInterval(Double(index)))
    }
    // About 1 kB a message: three to a 4 KiB page.
    let text = String(repeating: "x", count: 1_000)
    var pending = Self.message(0, in: "old")
    (pending.id, pending.state) = (nil, .pending)
    try await store.upsert([pending])
    for conversation in ["old", "recent"] {
      try await store.upsert(
        (1...150).map { Self.message($0, in: conversation, text: text) }.map {
          var message = $0
          (message.id, message.clientMessageID) = (
            "\(conversation)-\($0.id!)", "\(conversation)-\($0.clientMessageID!)"
          )
          return message
        })
    }
    #expect(try await store.messageCount(in: "old") == 151, "about 450 kB: under the limit")
    try await store.upsert((1...450).map { Self.message($0, in: "current", text: text) })
    #expect(try await store.size() <= 1 << 20)
    #expect(try await store.messages(in: "old", limit: 500).map(\.state) == [.pending])
    #expect(try await store.messageCount(in: "recent") == 150)
    #expect(try await store.messageCount(in: "current") == 450)
  }

  @Test("A push stored on the caller's thread leaves the eviction it calls for to the caller, who runs it after")
  func evictionAfterAPushedWrite() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try open(maxSize: 1 << 20)
    for (index, id) in ["old", "current"].enumerated() {
      try await store.upsert([.init(id: id, workspaceID: "w1", kind: .channel, name: id, joined: true)])
      try await store.touch(id, at: Self.start.addingTimeInterval(Double(index)))
    }
    let text = String(repeating: "x", count: 1_000)
    func messages(_ count: Int, in conversation: String) -> [Message] {
      (1...count).map {
        var message = Self.message($0, in: conversation, text: text)
        (message.id, message.clientMessageID) = ("\(conversation)-\($0)", "\(conversation)-c\($0)")
        return message
      }
    }
    try await store.upsert(messages(200, in: "old"))
    #expect(try await store.messageCount(in: "old") == 200, "about 600 kB: under the limit")
    let pushed = messages(450, in: "current")
    let last = try #require(pushed.last?.id)
    let newest = try #require(try await store.messages(in: "old", limit: 1).last)
    let written = try store.upsertNow(
      pushed, movingReadPositionOf: "ann", in: "current", to: last, seq: 450, readingAfter: newest.position,
      limit: 10)
    #expect(written.inserted.count == 450)
    #expect(written.evictionDue, "the store may be past its size")
    #expect(try await store.messageCount(in: "old") == 200, "the write itself evicts nothing")
    try await store.evictAfterGrowth()
    #expect(try await store.size() <= 1 << 20)
    #expect(try await store.messageCount(in: "current") == 450)
    #expect(try await store.messageCount(in: "old") < 200)
  }

  @Test("A file that is not a database is set aside, kept, and the store starts empty")
  func notADatabase() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let garbage = Data((0..<8_192).map { UInt8(truncatingIfNeeded: $0 &* 131) })
    try garbage.write(to: url)
    let store = try open()
    let aside = try #require(store.setAside)
    #expect(try Data(contentsOf: aside.url) == garbage)
    #expect(aside.reason.contains(url.path))
    try await store.upsert([Self.message(1)])
    #expect(try await store.messageCount(in: "general") == 1)
    #expect(try ChatStore(url: url).setAside == nil, "the new file opens as a store")
  }

  @Test("Another program's database is set aside untouched; the same goes for a newer store's")
  func foreignDatabase() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let other = try DatabaseQueue(path: url.path)
    try await other.write {
      try $0.execute(sql: "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')")
    }
    try other.close()
    let bytes = try Data(contentsOf: url)
    let store = try open()
    let aside = try #require(store.setAside)
    #expect(aside.reason.contains("something else"))
    #expect(try Data(contentsOf: aside.url) == bytes, "not a byte changed")
    let kept = try DatabaseQueue(path: aside.url.path)
    #expect(try await kept.read { try String.fetchOne($0, sql: "SELECT body FROM notes") } == "keep me")
    try kept.close()

    try await store.write("add a newer migration") { db in
      try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('chat-v99')")
    }
    #expect(try open().setAside?.reason.contains("newer version") == true)
  }
}
