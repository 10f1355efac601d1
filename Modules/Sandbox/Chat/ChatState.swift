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
    /// Its number in its conversation: 1, 2, 3, … in the order the backend stored them, without a gap. A state file
    /// written before messages had one is numbered as it is read.
    var seq: Int
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

extension ChatState.Message {
  private enum CodingKeys: String, CodingKey {
    case id, conversationID, clientMessageID, senderID, text, imageIDs, createdAt, seq
  }

  /// A message as a state file keeps it; `seq` 0 when the file was written before messages had one.
  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      id: try container.decode(String.self, forKey: .id),
      conversationID: try container.decode(String.self, forKey: .conversationID),
      clientMessageID: try container.decodeIfPresent(String.self, forKey: .clientMessageID),
      senderID: try container.decode(String.self, forKey: .senderID),
      text: try container.decode(String.self, forKey: .text),
      imageIDs: try container.decode([String].self, forKey: .imageIDs),
      createdAt: try container.decode(Int64.self, forKey: .createdAt),
      seq: try container.decodeIfPresent(Int.self, forKey: .seq) ?? 0)
  }
}
