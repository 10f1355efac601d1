import Domain
import Foundation
import KeelFiles
import Persistence
import Realtime

/// The chat backend's JSON (SandboxAPI §7), read into the store's records.
enum ChatWire {
  struct User: Decodable, Sendable {
    let id: String
    let nickname: String
    let profileImage: String?
    let email: String?

    var member: Chat.Member {
      Chat.Member(id: id, nickname: nickname, profileImage: profileImage, email: email)
    }
  }

  struct Workspace: Decodable, Sendable {
    let id: String
    let name: String
    let ownerId: String

    var record: Chat.Workspace { Chat.Workspace(id: id, name: name, ownerID: ownerId) }
  }

  struct Channel: Decodable, Sendable {
    let id: String
    let workspaceId: String
    let name: String
    let ownerId: String?
    let joined: Bool
    let unreadCount: Int
    let memberCount: Int?
    var unreadMentionCount: Int? = nil

    var record: Chat.Conversation {
      Chat.Conversation(
        id: id, workspaceID: workspaceId, kind: .channel, name: name, joined: joined, ownerID: ownerId,
        unreadCount: unreadCount, memberCount: memberCount ?? 0, unreadMentionCount: unreadMentionCount ?? 0)
    }
  }

  struct DirectMessageRoom: Decodable, Sendable {
    let id: String
    let workspaceId: String
    let members: [User]
    let unreadCount: Int
    let lastMessage: Message?
    var unreadMentionCount: Int? = nil

    /// The room, named after its other member (or after the caller, for a room with themselves only).
    func record(for me: String) -> Chat.Conversation {
      let other = members.first { $0.id != me } ?? members.first
      return Chat.Conversation(
        id: id, workspaceID: workspaceId, kind: .directMessage, name: other?.nickname ?? id, joined: true,
        unreadCount: unreadCount, memberCount: members.count, unreadMentionCount: unreadMentionCount ?? 0)
    }
  }

  struct Message: Decodable, Sendable {
    let id: String
    let conversationId: String
    let clientMessageId: String?
    let senderId: String
    let text: String
    let images: [String]
    /// Milliseconds since 1970.
    let createdAt: Double
    /// Its number in its conversation (1, 2, 3, …); `nil` from a server that does not number them.
    var seq: Int? = nil
    /// Whether the server left the text and images out (a brief page).
    var brief: Bool? = nil
    /// Milliseconds since 1970 of the sender's last edit.
    var editedAt: Double? = nil
    var deleted: Bool? = nil
    var replyTo: String? = nil
    var replyCount: Int? = nil
    var lastReplyId: String? = nil
    var reactions: [Reaction]? = nil
    /// The conversation's change number when it was created or last changed.
    var version: Int? = nil
    /// The user ids its text mentions.
    var mentions: [String]? = nil
    var files: [File]? = nil

    struct Reaction: Codable, Sendable {
      let emoji: String
      let userIds: [String]
    }

    struct File: Codable, Sendable {
      let name: String
      let size: Int64
      let contentType: String
      let url: String

      /// The file as the client keeps it, its name made safe whatever the server sent.
      var record: Chat.Message.File {
        Chat.Message.File(
          name: SafeFileName.sanitized(name), size: max(0, size), contentType: contentType, url: url)
      }
    }

    /// The message as one the client could not take: without its text and images, marked brief.
    var unavailable: Message {
      Message(
        id: id, conversationId: conversationId, clientMessageId: clientMessageId, senderId: senderId, text: "",
        images: [], createdAt: createdAt, seq: seq, brief: true, deleted: deleted, version: version)
    }

    var record: Chat.Message {
      Chat.Message(
        id: id, clientMessageID: clientMessageId, conversationID: conversationId, senderID: senderId, text: text,
        images: images, createdAt: Date(timeIntervalSince1970: createdAt / 1_000), state: .sent,
        // A tombstone's brief copy is whole: a deleted message has no text or images to leave out.
        isUnavailable: brief == true && deleted != true, seq: seq,
        editedAt: editedAt.map { Date(timeIntervalSince1970: $0 / 1_000) },
        isDeleted: deleted == true, replyTo: replyTo, replyCount: max(0, replyCount ?? 0), lastReplyID: lastReplyId,
        reactions: (reactions ?? []).map { Chat.Message.Reaction(emoji: $0.emoji, userIDs: $0.userIds) },
        version: version, mentions: mentions ?? [], files: (files ?? []).map(\.record))
    }
  }

  struct Workspaces: Decodable, Sendable { let workspaces: [Workspace] }
  struct Channels: Decodable, Sendable { let channels: [Channel] }
  struct DirectMessages: Decodable, Sendable { let dms: [DirectMessageRoom] }
  struct Members: Decodable, Sendable { let members: [User] }
  struct Page: Decodable, Sendable {
    let messages: [Message]
    let hasMore: Bool
    /// The conversation's change number as the page was read; `nil` from a server that does not number changes.
    var version: Int? = nil
  }

  /// The messages changed after a change number, as they are now, in change order.
  struct Changes: Decodable, Sendable {
    let messages: [Message]
    /// The conversation's change number as the list was read.
    let version: Int
    let hasMore: Bool
  }

  /// A `messageChanged` push: why, and the message as it is now.
  struct Changed: Decodable, Sendable {
    let change: String
    let message: Message
  }
  struct Unread: Decodable, Sendable {
    let unreadCount: Int
    var unreadMentionCount: Int? = nil
  }

  /// A `read` push: the user read a conversation up to a message, here or on another device.
  struct Read: Decodable, Sendable {
    let conversationId: String
    let lastReadMessageId: String
    let unreadCount: Int
    var unreadMentionCount: Int? = nil
  }

  /// How far a member has read: a `memberRead` push, or one of `GET …/reads`.
  struct MemberRead: Decodable, Sendable {
    let conversationId: String?
    let userId: String
    let messageId: String
    let seq: Int
  }

  struct Reads: Decodable, Sendable { let reads: [MemberRead] }

  /// A `channelDeleted` or `workspaceDeleted` push.
  struct Deleted: Decodable, Sendable { let id: String }

  /// A push's one argument read as `T`, or `nil` when it is not one.
  static func pushed<T: Decodable>(_ type: T.Type, from args: [SocketValue]) -> T? {
    guard let value = args.first, let data = try? JSONEncoder().encode(value.json(binary: { _ in .null })) else {
      return nil
    }
    return try? JSONDecoder().decode(T.self, from: data)
  }
}
