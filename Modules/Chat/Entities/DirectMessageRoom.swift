import Foundation

/// A DM room as its list shows it: the room, its members, and its newest message.
public struct DirectMessageRoom: Sendable, Hashable {
  /// The room; its `Conversation.name` is the other member's nickname.
  public var conversation: Conversation
  /// Both members.
  public var members: [Member]
  /// Its newest message, if it has one.
  public var lastMessage: Message?

  /// A room.
  public init(conversation: Conversation, members: [Member], lastMessage: Message?) {
    self.conversation = conversation
    self.members = members
    self.lastMessage = lastMessage
  }
}
