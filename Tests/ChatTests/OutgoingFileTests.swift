import Foundation
import Testing

@testable import Chat

/// The outbox's copies of a message's files are not flushed to disk, its records are: a copy a power loss left short
/// is refused with a reason before it is sent, never sent as it is.
@Suite("Outgoing files")
struct OutgoingFileTests {
  @Test("A copy of the size it was taken with is whole; one cut short or gone is lost, and says which and how much")
  func lostCopies() throws {
    let images = FileManager.default.temporaryDirectory.appendingPathComponent("keel-outgoing-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: images) }
    try Data(count: 4_096).write(to: images.appendingPathComponent("copy-1"))
    let message = OutgoingMessage(
      conversationID: "c1", clientMessageID: "k1", senderID: "ann", text: "", images: [],
      files: [OutgoingFile(copy: "copy-1", name: "report.pdf", contentType: "application/pdf", size: 4_096)])
    #expect(message.lostFile(in: images) == nil)

    try FileHandle(forWritingTo: images.appendingPathComponent("copy-1")).truncate(atOffset: 0)
    let short = try #require(message.lostFile(in: images))
    #expect(short.contains("report.pdf") && short.contains("0 of 4096 bytes"), "\(short)")

    try FileManager.default.removeItem(at: images.appendingPathComponent("copy-1"))
    #expect(message.lostFile(in: images) != nil)
  }
}
