import Chat
import Domain
import Foundation

/// A message as `keel chat` prints it: a line for people, an object for `--json` (snake_case like every `--json`
/// output, the images as absolute URLs, the time in ISO 8601).
struct MessageRow: Encodable {
  let id: String?
  let clientMessageId: String?
  let conversationId: String
  let senderId: String
  /// The sender's nickname, when known.
  let sender: String?
  let text: String
  let images: [String]
  let createdAt: Date
  /// `sent`, `pending` or `failed`.
  let state: String
  let failureReason: String?
  /// Whether the server holds it but it was too large for keel to take: no text or images here.
  let unavailable: Bool
  /// Its number in its conversation (1, 2, 3, … in the order the server stored them); absent until the server
  /// numbered it.
  let seq: Int?

  /// The row of `message`, its sender named from `names` and its images resolved against `baseURL`.
  init(_ message: Message, names: [String: String], baseURL: URL) {
    id = message.id
    clientMessageId = message.clientMessageID
    conversationId = message.conversationID
    senderId = message.senderID
    sender = names[message.senderID]
    text = message.text
    images = message.images.map { URL(string: $0, relativeTo: baseURL)?.absoluteString ?? $0 }
    createdAt = message.createdAt
    state = message.state.rawValue
    failureReason = message.failureReason
    unavailable = message.isUnavailable
    seq = message.seq
  }

  /// `[2026-11-26 09:41:07] ada: Hello [image: http://…]`, the text's line breaks and controls escaped.
  var line: String {
    "[\(Self.localTime(createdAt))] \(Output.printable(sender ?? senderId)): \(brief)"
  }

  /// The text and images alone.
  var brief: String {
    guard !unavailable else { return "(unavailable: too large to take)" }
    let pictures = images.map { " [image: \(Output.printable($0))]" }.joined()
    let status = state == "sent" ? "" : " (\(state)\(failureReason.map { ": \($0)" } ?? ""))"
    return Output.printable(text) + pictures + status
  }

  /// `date` as `2026-11-26 09:41:07`, in this machine's time zone.
  private static func localTime(_ date: Date) -> String {
    let parts = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    return String(
      format: "%04d-%02d-%02d %02d:%02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
      parts.minute ?? 0, parts.second ?? 0)
  }
}
