import Domain
import Foundation
import KeelConcurrency
import Logging
import Networking
import Persistence
import Testing

@testable import Chat

/// What changes a sent message (edits, deletions, reactions, replies) in a real store and a conversation's catch-up:
/// a newer copy replaces an older one whatever order they come in, a change of a message the store does not hold
/// is left for its page, and the catch-up asks for the changes since the last one it caught up to.
@Suite("Conversation changes", .timeLimit(.minutes(3)))
struct ConversationChangesTests {
  let store: ChatStore

  init() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-changes-\(UUID().uuidString)")
    store = try ChatStore(url: directory.appendingPathComponent("chat.sqlite"))
  }

  static func message(_ number: Int, version: Int, text: String? = nil) -> ChatWire.Message {
    ChatWire.Message(
      id: "m\(number)", conversationId: "c1", clientMessageId: nil, senderId: "ann", text: text ?? "message \(number)",
      images: [], createdAt: Double(1_700_000_000_000 + number), seq: number, version: version)
  }

  func stored(_ number: Int) async throws -> Message? { try await store.message(serverID: "m\(number)") }

  @Test("A change replaces the stored copy only when newer, and only of a message the store holds")
  func newerWins() async throws {
    try await store.upsert([Self.message(1, version: 1).record])
    var edited = Self.message(1, version: 3, text: "edited").record
    edited.editedAt = Date(timeIntervalSince1970: 1_700_000_001)
    edited.reactions = [Message.Reaction(emoji: "👍", userIDs: ["bob"])]
    #expect(try await store.applyChanges([edited, Self.message(2, version: 4).record]) == 1)
    #expect(try await stored(2) == nil, "a change of a message not stored is left for its page")
    // Older copies, however they come (a page read before the edit, a push overtaken), change nothing.
    #expect(try await store.applyChanges([Self.message(1, version: 2).record]) == 0)
    try await store.upsert([Self.message(1, version: 1).record])
    let now = try #require(try await stored(1))
    #expect(now.text == "edited" && now.version == 3 && now.editedAt == edited.editedAt)
    #expect(now.reactions == edited.reactions)

    var deleted = Self.message(1, version: 5, text: "").record
    deleted.isDeleted = true
    #expect(try await store.applyChanges([deleted]) == 1)
    #expect(try await stored(1)?.isDeleted == true)
  }

  @Test("The change number is kept with the sync point and goes with it")
  func changeVersionLivesWithTheSyncPoint() async throws {
    try await store.setSyncPoint("m1", in: "c1")
    try await store.setChangeVersion(7, in: "c1")
    try await store.setSyncPoint("m2", in: "c1")
    #expect(try await store.changeVersion(in: "c1") == 7)
    try await store.resetMessages(in: "c1")
    #expect(try await store.changeVersion(in: "c1") == nil)
  }

  @Test("A catch-up asks for the changes since its last, halves pages too large, pages past one too large to take")
  func catchUpOfChanges() async throws {
    try await store.upsert((1...3).map { Self.message($0, version: $0).record })
    try await store.setSyncPoint("m3", in: "c1")
    try await store.setChangeVersion(3, in: "c1")
    var deleted = Self.message(2, version: 5, text: "")
    deleted.deleted = true
    let changes = [
      Self.message(1, version: 4, text: "edited"), deleted, Self.message(3, version: 6, text: "edited again"),
      Self.message(9, version: 7),
    ]
    let asked = Locked<[(since: Int, limit: Int, brief: Bool)]>([])
    let sync = ConversationSync(
      id: "c1", store: store,
      fetch: { _, _, _, _ in ChatWire.Page(messages: [], hasMore: false, version: 7) },
      fetchChanges: { since, limit, brief in
        asked.withLock { $0.append((since, limit, brief)) }
        let rest = changes.filter { ($0.version ?? 0) > since }
        let page = Array(rest.prefix(limit))
        // Two changes do not fit in one answer, and m3's whole copy does not fit alone.
        if !brief && (page.count > 1 || page.contains { $0.id == "m3" }) {
          var error = NetworkError(.transport, "The response is over the transport's limit.")
          error.urlError = URLError(.dataLengthExceedsMaximum)
          throw ChatError.request(RequestFailure(error), doing: "read the changes")
        }
        return ChatWire.Changes(
          messages: brief ? page.map(\.unavailable) : page, version: 7, hasMore: rest.count > page.count)
      },
      configuration: ChatConfiguration(pageSize: 50, catchUpPageSize: 10).clamped,
      logger: Logger(label: "keel.tests.changes") { _ in SwiftLogNoOpLogHandler() }, sleep: { _ in })
    try await sync.catchUpOnce()
    #expect(try await stored(1)?.text == "edited")
    #expect(try await stored(2)?.isDeleted == true, "a tombstone's brief copy is whole")
    #expect(try await stored(3)?.text == "message 3", "a change too large to take leaves the stored copy")
    #expect(try await stored(9) == nil)
    #expect(try await store.changeVersion(in: "c1") == 7)
    let sinces = asked.withLock { $0 }.map(\.since)
    #expect(sinces.first == 3 && sinces.contains(4) && sinces.contains(6), "\(sinces)")
    #expect(asked.withLock { $0 }.contains { $0.brief && $0.since == 5 })
    await sync.stop()
  }
}
