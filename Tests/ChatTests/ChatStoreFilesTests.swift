import Foundation
import Persistence
import Testing

@testable import Chat

/// A message's files in a real store: kept and read back whole, and, once the message is deleted or gone with its
/// conversation, listed once for the file cache to forget.
@Suite("Chat store files")
struct ChatStoreFilesTests {
  let store: ChatStore

  init() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-files-\(UUID().uuidString)")
    store = try ChatStore(url: directory.appendingPathComponent("chat.sqlite"))
  }

  static func message(_ id: String, files: [Message.File], deleted: Bool = false, version: Int) -> Message {
    Message(
      id: id, clientMessageID: nil, conversationID: "c1", senderID: "ann", text: deleted ? "" : "see attached",
      createdAt: Date(timeIntervalSince1970: 1_700_000_000), isDeleted: deleted, version: version, files: files)
  }

  @Test("Files are kept whole; a deletion lists their paths once for the cache to forget")
  func keptThenReleased() async throws {
    let report = Message.File(name: "report.pdf", size: 42, contentType: "application/pdf", url: "/v1/chat-files/f1")
    let notes = Message.File(name: "notes.txt", size: 5, contentType: "text/plain", url: "/v1/chat-files/f2")
    try await store.upsert([Self.message("m1", files: [report, notes], version: 1)])
    #expect(try await store.message(serverID: "m1")?.files == [report, notes])
    #expect(try await store.takeReleasedFiles().isEmpty, "nothing deleted yet")

    // An older copy changes nothing; the tombstone releases both files, listed once.
    try await store.applyChanges([Self.message("m1", files: [], deleted: true, version: 2)])
    #expect(try await store.message(serverID: "m1")?.files == [])
    #expect(Set(try await store.takeReleasedFiles()) == ["/v1/chat-files/f1", "/v1/chat-files/f2"])
    #expect(try await store.takeReleasedFiles().isEmpty)
  }
}
