import Foundation
import KeelJSON

extension OutgoingMessage {
  /// The message as the outbox stores it, for one of text and images (the one `send` keeps on the way to the
  /// network): the JSON its `Codable` conformance reads, written directly rather than through `JSONEncoder`, which
  /// on Linux took about 20 µs of the 95 from `send` to the outbox's commit, as it had of a tracked event's
  /// (Decision 0017). Keys in the conformance's order, strings escaped as JSON requires, an absent reply left out as
  /// `JSONEncoder` leaves it. `nil` for a message with files or a change, which `JSONEncoder` writes.
  var storedJSON: Data? {
    guard files == nil, change == nil else { return nil }
    var json = JSONWriter()
    json.bytes.reserveCapacity(160 + text.utf8.count)
    json.raw("{\"conversationID\":")
    json.string(conversationID)
    json.raw(",\"clientMessageID\":")
    json.string(clientMessageID)
    json.raw(",\"senderID\":")
    json.string(senderID)
    json.raw(",\"text\":")
    json.string(text)
    json.raw(",\"images\":[")
    for (index, name) in images.enumerated() {
      if index > 0 { json.raw(",") }
      json.string(name)
    }
    json.raw("]")
    if let replyTo {
      json.raw(",\"replyTo\":")
      json.string(replyTo)
    }
    json.raw("}")
    return Data(json.bytes)
  }
}
