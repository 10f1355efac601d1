import Foundation

/// A conversation: a channel of a workspace, or a direct-message room.
public struct Conversation: Sendable, Hashable, Codable, Identifiable {
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
  /// How many of the unread messages mention the user (`@nickname`): the server's count, moved on by the pushes since.
  public var unreadMentionCount: Int

  /// A conversation.
  public init(
    id: String, workspaceID: String, kind: Kind, name: String, joined: Bool, ownerID: String? = nil,
    unreadCount: Int = 0, memberCount: Int = 0, unreadMentionCount: Int = 0
  ) {
    self.id = id
    self.workspaceID = workspaceID
    self.kind = kind
    self.name = name
    self.joined = joined
    self.ownerID = ownerID
    self.unreadCount = unreadCount
    self.memberCount = memberCount
    self.unreadMentionCount = unreadMentionCount
  }
}
