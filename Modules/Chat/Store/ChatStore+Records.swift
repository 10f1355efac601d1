import Foundation
import Persistence

extension ChatStore {
  /// A workspace, as the store keeps it.
  public struct Workspace: Sendable, Hashable, Codable {
    /// The server's id.
    public var id: String
    /// Its name.
    public var name: String
    /// The user id of its owner.
    public var ownerID: String

    /// A workspace.
    public init(id: String, name: String, ownerID: String) {
      self.id = id
      self.name = name
      self.ownerID = ownerID
    }
  }

  /// A conversation: a channel of a workspace, or a direct-message room.
  public struct Conversation: Sendable, Hashable, Codable {
    /// Whether a conversation is a channel or a direct-message room.
    public enum Kind: String, Sendable, Hashable, Codable {
      /// A channel (a group chat) of a workspace.
      case channel
      /// A direct-message room between members of a workspace.
      case directMessage
    }

    /// The server's id.
    public var id: String
    /// The workspace it belongs to.
    public var workspaceID: String
    /// A channel or a DM room.
    public var kind: Kind
    /// Its name: the channel's, or the other member's for a DM.
    public var name: String
    /// Whether the signed-in user has joined it.
    public var joined: Bool
    /// The user id of its owner, for a channel.
    public var ownerID: String?
    /// The messages others sent after the user's read pointer: the server's count, moved on by the pushes since.
    public var unreadCount: Int
    /// How many members it has: a channel's as the server last told, a DM room's two.
    public var memberCount: Int

    /// A conversation.
    public init(
      id: String, workspaceID: String, kind: Kind, name: String, joined: Bool, ownerID: String? = nil,
      unreadCount: Int = 0, memberCount: Int = 0
    ) {
      self.id = id
      self.workspaceID = workspaceID
      self.kind = kind
      self.name = name
      self.joined = joined
      self.ownerID = ownerID
      self.unreadCount = unreadCount
      self.memberCount = memberCount
    }
  }

  /// A member of a workspace or a conversation.
  public struct Member: Sendable, Hashable, Codable {
    /// The user's id.
    public var userID: String
    /// The name shown for them.
    public var nickname: String
    /// Their profile image, if any.
    public var profileURL: String?
    /// Their email, when the server shows it: what tells two members of the same nickname apart.
    public var email: String?

    /// A member.
    public init(userID: String, nickname: String, profileURL: String? = nil, email: String? = nil) {
      self.userID = userID
      self.nickname = nickname
      self.profileURL = profileURL
      self.email = email
    }
  }

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

    /// A message.
    public init(
      id: String?, clientMessageID: String?, conversationID: String, senderID: String, text: String,
      images: [String] = [], createdAt: Date, state: State = .sent, failureReason: String? = nil,
      isUnavailable: Bool = false, seq: Int? = nil
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
    }

    /// Where this message stands in its conversation's order.
    public var position: Position { Position(createdAt: createdAt, key: id ?? clientMessageID ?? "") }
  }

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
