import Chat
import Domain
import Foundation

/// A message as `keel chat` prints it: a line for people, an object for `--json` (snake_case like every `--json`
/// output, the images and files as absolute URLs, the time in ISO 8601; `edited_at` and `reply_to` null when there is none).
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
  /// When its sender last edited it.
  let editedAt: Date?
  /// Whether its sender deleted it: no text, images or reactions.
  let deleted: Bool
  /// The id of the message it replies to.
  let replyTo: String?
  /// How many replies it has.
  let replyCount: Int
  /// Each emoji with the nicknames (else the user ids) of the members who chose it.
  let reactions: [String: [String]]
  /// The nicknames (else the user ids) of the members who have read it, its sender left out.
  let readBy: [String]
  /// The nicknames (else the user ids) of the members it mentions.
  let mentions: [String]
  /// Its files, each with its name, size, content type and absolute URL.
  let files: [FileRow]
  /// The same emoji in the order first chosen, for the line.
  private let reactionOrder: [String]

  /// The row of `message`, its sender named from `names`, its images resolved against `baseURL`; `readBy`, the user
  /// ids of who has read it (`ConversationSnapshot.readBy(_:)`).
  init(_ message: Message, names: [String: String], baseURL: URL, readBy: [String] = []) {
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
    editedAt = message.editedAt
    deleted = message.isDeleted
    replyTo = message.replyTo
    replyCount = message.replyCount
    reactions = Dictionary(
      message.reactions.map { ($0.emoji, $0.userIDs.map { names[$0] ?? $0 }) }, uniquingKeysWith: { first, _ in first })
    reactionOrder = message.reactions.map(\.emoji)
    self.readBy = readBy.map { names[$0] ?? $0 }
    mentions = message.mentions.map { names[$0] ?? $0 }
    files = message.files.map { file in
      FileRow(
        name: file.name, size: file.size, contentType: file.contentType,
        url: URL(string: file.url, relativeTo: baseURL)?.absoluteString ?? file.url)
    }
  }

  /// A file of a message as `--json` shows it.
  struct FileRow: Encodable {
    let name: String
    let size: Int64
    let contentType: String
    let url: String
  }

  private enum CodingKeys: String, CodingKey {
    case id, clientMessageId, conversationId, senderId, sender, text, images, createdAt, state, failureReason
    case unavailable, seq, editedAt, deleted, replyTo, replyCount, reactions, readBy, mentions, files
  }

  /// Every key; `edited_at` and `reply_to` as null when there is none, the others without a value left out.
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encodeIfPresent(id, forKey: .id)
    try container.encodeIfPresent(clientMessageId, forKey: .clientMessageId)
    try container.encode(conversationId, forKey: .conversationId)
    try container.encode(senderId, forKey: .senderId)
    try container.encodeIfPresent(sender, forKey: .sender)
    try container.encode(text, forKey: .text)
    try container.encode(images, forKey: .images)
    try container.encode(createdAt, forKey: .createdAt)
    try container.encode(state, forKey: .state)
    try container.encodeIfPresent(failureReason, forKey: .failureReason)
    try container.encode(unavailable, forKey: .unavailable)
    try container.encodeIfPresent(seq, forKey: .seq)
    try container.encode(editedAt, forKey: .editedAt)
    try container.encode(deleted, forKey: .deleted)
    try container.encode(replyTo, forKey: .replyTo)
    try container.encode(replyCount, forKey: .replyCount)
    try container.encode(reactions, forKey: .reactions)
    try container.encode(readBy, forKey: .readBy)
    try container.encode(mentions, forKey: .mentions)
    try container.encode(files, forKey: .files)
  }

  /// `[2026-11-26 09:41:07] ada: Hello [image: http://…] (edited) 👍 2`, the text's line breaks and controls escaped.
  var line: String {
    "[\(Self.localTime(createdAt))] \(Output.printable(sender ?? senderId)): \(brief)"
  }

  /// The text and images alone, with what happened to the message since.
  var brief: String {
    guard !unavailable else { return "(unavailable: too large to take)" }
    guard !deleted else { return "(deleted)" }
    let reply = replyTo.map { "(reply to \(Output.printable($0))) " } ?? ""
    let pictures =
      images.map { " [image: \(Output.printable($0))]" }.joined()
      + files.map { " [file: \(Output.printable($0.name)), \($0.size) bytes: \(Output.printable($0.url))]" }.joined()
    let status = state == "sent" ? "" : " (\(state)\(failureReason.map { ": \($0)" } ?? ""))"
    let edited = editedAt == nil ? "" : " (edited)"
    let replies = replyCount == 0 ? "" : " [\(replyCount) \(replyCount == 1 ? "reply" : "replies")]"
    let chosen = reactionOrder.map { " \(Output.printable($0)) \(reactions[$0]?.count ?? 0)" }.joined()
    return reply + Output.printable(text) + pictures + status + edited + replies + chosen
  }

  /// `date` as `2026-11-26 09:41:07`, in this machine's time zone.
  private static func localTime(_ date: Date) -> String {
    let parts = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    return String(
      format: "%04d-%02d-%02d %02d:%02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
      parts.minute ?? 0, parts.second ?? 0)
  }
}
