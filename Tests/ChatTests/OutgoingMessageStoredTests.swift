import Foundation
import Testing

@testable import Chat

/// The outbox's hand-written JSON of a message of text and images is what `JSONEncoder` writes of it, as the outbox's
/// reader (`JSONDecoder`) sees it.
@Suite("Outgoing messages as stored")
struct OutgoingMessageStoredTests {
  static let messages = [
    OutgoingMessage(conversationID: "c1", clientMessageID: "k1", senderID: "ann", text: "Hello", images: []),
    OutgoingMessage(
      conversationID: "c 2", clientMessageID: "k2", senderID: "b\"o\\b",
      text: "quotes \" and \\ backslashes,\nnew lines\r\n, a tab\t, a bell \u{07}, é, 猫 and 🐈", images: [],
      replyTo: "m7"),
    OutgoingMessage(
      conversationID: "c3", clientMessageID: "k3", senderID: "ann", text: "", images: ["k3-0.png", "k3-\"1\".jpg"]),
  ]

  @Test("Each decodes to the same message, and to the same JSON object as JSONEncoder's")
  func sameAsTheEncoders() throws {
    for message in Self.messages {
      let stored = try #require(message.storedJSON)
      let decoded = try JSONDecoder().decode(OutgoingMessage.self, from: stored)
      #expect(decoded.conversationID == message.conversationID)
      #expect(decoded.clientMessageID == message.clientMessageID)
      #expect(decoded.senderID == message.senderID)
      #expect(decoded.text == message.text)
      #expect(decoded.images == message.images)
      #expect(decoded.replyTo == message.replyTo)
      #expect(decoded.files == nil && decoded.change == nil)
      let ours = try JSONSerialization.jsonObject(with: stored) as? NSDictionary
      let encoders = try JSONSerialization.jsonObject(with: JSONEncoder().encode(message)) as? NSDictionary
      #expect(ours != nil && ours == encoders, "\(String(decoding: stored, as: UTF8.self))")
    }
  }

  @Test("A message with files or a change is left to JSONEncoder")
  func filesAndChangesAreTheEncoders() {
    let file = OutgoingFile(copy: "k4-0", name: "report.pdf", contentType: "application/pdf", size: 10)
    let withFiles = OutgoingMessage(
      conversationID: "c1", clientMessageID: "k4", senderID: "ann", text: "", images: [], files: [file])
    #expect(withFiles.storedJSON == nil)
    let original = Message(
      id: "m1", clientMessageID: "k0", conversationID: "c1", senderID: "ann", text: "old",
      createdAt: Date(timeIntervalSince1970: 1_700_000_000))
    let edit = OutgoingMessage(
      conversationID: "c1", clientMessageID: "e1", senderID: "ann", text: "", images: [],
      change: OutgoingChange(kind: .edit, messageID: "m1", text: "new", original: original))
    #expect(edit.storedJSON == nil)
  }
}
