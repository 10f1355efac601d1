import Foundation

/// A message, sent or still on its way.
public struct Message: Sendable, Hashable, Codable {
  /// Where a message stands.
  public enum State: String, Sendable, Hashable, Codable {
    /// Written here, not yet accepted by the server.
    case pending
    /// Accepted by the server: it has a server id and time.
    case sent
    /// The server refused it, or sending gave up; ``Message/failureReason`` says why.
    case failed
  }

  /// The server's id; `nil` until the server accepted it.
  public var id: String?
  /// The id the sending client gave it, which makes a re-send the same message.
  public var clientMessageID: String?
  /// The conversation it belongs to.
  public var conversationID: String
  /// Who sent it.
  public var senderID: String
  /// Its text.
  public var text: String
  /// Its images: server URLs once sent, local file paths while pending.
  public var images: [String]
  /// The server's time once sent; the local time it was written while pending.
  public var createdAt: Date
  /// Pending, sent or failed.
  public var state: State
  /// Why it failed, for ``State/failed``.
  public var failureReason: String?
  /// Whether the server holds this message but it was too large for this client to take: it has its id, sender
  /// and time, and no text or images here; a screen shows it as unavailable. A whole copy, when one comes, takes
  /// its place.
  public var isUnavailable: Bool
  /// Its number in its conversation, 1, 2, 3, … in the order the server stored them; `nil` until the server
  /// numbered it (pending, failed), or from a server that does not.
  public var seq: Int?
  /// When its sender last edited it; `nil` when never.
  public var editedAt: Date?
  /// Whether its sender deleted it: a tombstone, without text, images or reactions, which keeps its place; a screen
  /// shows "deleted".
  public var isDeleted: Bool
  /// The server id of the message it replies to, in the same conversation.
  public var replyTo: String?
  /// How many replies it has that are not deleted.
  public var replyCount: Int
  /// The server id of its newest reply.
  public var lastReplyID: String?
  /// Its reactions, each emoji with who chose it, in the order first chosen.
  public var reactions: [Reaction]
  /// The conversation's change number when the server created or last changed it: of two copies, the one with the
  /// higher number is the newer. `nil` until the server has it, or from a server that does not number changes.
  public var version: Int?
  /// The members its text mentions (`@nickname`), by user id, as the server found them.
  public var mentions: [String]
  /// Its files, beside its images: server URLs once sent, local file paths while pending.
  public var files: [File]

  /// A file a message carries, of any type, with the name it was sent with.
  public struct File: Sendable, Hashable, Codable {
    /// Its name, made safe to show and to save under: no path separator, no control character, never empty.
    public var name: String
    /// Its size in bytes.
    public var size: Int64
    /// Its content type (`application/pdf`); `application/octet-stream` when nobody said.
    public var contentType: String
    /// Where it is: a path on the chat backend (`/v1/chat-files/…`) once sent, for ``ChatService/download(_:to:progress:)``;
    /// the outbox's copy while pending.
    public var url: String

    /// A file.
    public init(name: String, size: Int64, contentType: String, url: String) {
      self.name = name
      self.size = size
      self.contentType = contentType
      self.url = url
    }
  }

  /// One emoji on a message and the members who chose it.
  public struct Reaction: Sendable, Hashable, Codable {
    /// The emoji.
    public var emoji: String
    /// The user ids of the members who chose it, in the order they did.
    public var userIDs: [String]

    /// A reaction.
    public init(emoji: String, userIDs: [String]) {
      self.emoji = emoji
      self.userIDs = userIDs
    }
  }

  /// A message.
  public init(
    id: String?, clientMessageID: String?, conversationID: String, senderID: String, text: String,
    images: [String] = [], createdAt: Date, state: State = .sent, failureReason: String? = nil,
    isUnavailable: Bool = false, seq: Int? = nil, editedAt: Date? = nil, isDeleted: Bool = false,
    replyTo: String? = nil, replyCount: Int = 0, lastReplyID: String? = nil, reactions: [Reaction] = [],
    version: Int? = nil, mentions: [String] = [], files: [File] = []
  ) {
    self.id = id
    self.clientMessageID = clientMessageID
    self.conversationID = conversationID
    self.senderID = senderID
    self.text = text
    self.images = images
    self.createdAt = createdAt
    self.state = state
    self.failureReason = failureReason
    self.isUnavailable = isUnavailable
    self.seq = seq
    self.editedAt = editedAt
    self.isDeleted = isDeleted
    self.replyTo = replyTo
    self.replyCount = replyCount
    self.lastReplyID = lastReplyID
    self.reactions = reactions
    self.version = version
    self.mentions = mentions
    self.files = files
  }

  /// Where this message stands in its conversation's order.
  public var position: Position { Position(createdAt: createdAt, key: id ?? clientMessageID ?? "") }

  /// A place in a conversation's order: by time, then by id (the server id, or the client message id of a message
  /// not yet sent), so that messages of the same millisecond keep one order everywhere.
  public struct Position: Sendable, Hashable, Comparable {
    /// The message's time.
    public var createdAt: Date
    /// Its server id, or its client message id.
    public var key: String

    /// A position.
    public init(createdAt: Date, key: String) {
      self.createdAt = createdAt
      self.key = key
    }

    /// Earlier time first; the same time, the smaller key first.
    public static func < (lhs: Position, rhs: Position) -> Bool {
      (lhs.createdAt.timeIntervalSince1970, lhs.key) < (rhs.createdAt.timeIntervalSince1970, rhs.key)
    }
  }
}
