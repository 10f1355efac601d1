import Foundation

/// What the chat backend keeps (SandboxAPI §7): workspaces and their conversations (channels and DM rooms), each with
/// its members in the order they joined. Kept between runs by the embedded Sandbox.
struct ChatState: Codable, Sendable {
  struct Workspace: Codable, Sendable {
    let id: String
    var name: String
    var ownerID: String
    var memberIDs: [String]
  }

  struct Conversation: Codable, Sendable {
    enum Kind: String, Codable, Sendable {
      case channel
      case directMessage = "dm"
    }

    let id: String
    let workspaceID: String
    let kind: Kind
    /// The channel's name; empty for a DM room, whose name is the other member's.
    var name: String
    /// The channel's owner; `nil` for a DM room.
    var ownerID: String?
    var memberIDs: [String]
  }

  /// A message as the backend keeps it; its images by id.
  struct Message: Codable, Sendable {
    let id: String
    let conversationID: String
    let clientMessageID: String?
    let senderID: String
    let text: String
    let imageIDs: [String]
    /// Milliseconds since 1970, strictly increasing within a conversation, so that (time, id) orders it alone.
    let createdAt: Int64
  }

  var workspaces: [String: Workspace] = [:]
  var conversations: [String: Conversation] = [:]
  /// Every conversation's messages, oldest first.
  var messages: [String: [Message]] = [:]
  /// The last message each member read, by conversation, then user.
  var readPointers: [String: [String: String]] = [:]
  /// How many messages the backend holds, against ``maxMessages``.
  var messageCount = 0
  /// The last id handed out: ids are `w1`, `c2`, `d3`, … in creation order.
  var lastID = 0

  /// The most workspaces and conversations the backend keeps: a bound on what a client can make it hold.
  static let maxEntities = 10_000
  /// The most messages it keeps.
  static let maxMessages = 200_000

  /// Removes the conversations `ids` with their messages and read pointers; returns their messages' image ids.
  mutating func removeConversations(_ ids: some Sequence<String>) -> [String] {
    var imageIDs: [String] = []
    for id in ids {
      conversations[id] = nil
      let removed = messages.removeValue(forKey: id) ?? []
      messageCount -= removed.count
      imageIDs += removed.flatMap(\.imageIDs)
      readPointers[id] = nil
    }
    return imageIDs
  }

  /// The messages of `conversationID` after the one `userID` read last that others sent.
  func unreadCount(in conversationID: String, for userID: String) -> Int {
    let all = messages[conversationID] ?? []
    let start =
      readPointers[conversationID]?[userID].flatMap { read in all.firstIndex { $0.id == read } }
      .map { $0 + 1 } ?? 0
    return all[start...].count { $0.senderID != userID }
  }

  mutating func newID(_ prefix: String) -> String {
    lastID += 1
    return "\(prefix)\(lastID)"
  }

  /// The conversations of `workspaceID`, of `kind`, in creation order.
  func conversations(in workspaceID: String, kind: Conversation.Kind) -> [Conversation] {
    conversations.values.filter { $0.workspaceID == workspaceID && $0.kind == kind }
      .sorted { ($0.id.count, $0.id) < ($1.id.count, $1.id) }
  }
}
