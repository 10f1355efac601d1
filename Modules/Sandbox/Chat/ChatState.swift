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
    var text: String
    var imageIDs: [String]
    /// Milliseconds since 1970, strictly increasing within a conversation, so that (time, id) orders it alone.
    let createdAt: Int64
    /// Its number in its conversation: 1, 2, 3, … in the order the backend stored them, without a gap. A state file
    /// written before messages had one is numbered as it is read.
    var seq: Int
    /// When its sender last edited it, in milliseconds since 1970.
    var editedAt: Int64? = nil
    /// Whether its sender deleted it: a tombstone, without text, images or reactions, kept so that its place and
    /// number stay.
    var deleted = false
    /// The message it replies to, in the same conversation.
    var replyTo: String? = nil
    /// How many messages not deleted reply to it, and the newest of them.
    var replyCount = 0
    var lastReplyID: String? = nil
    /// Its reactions, each emoji with the users who chose it, in the order they did.
    var reactions: [Reaction] = []
    /// The conversation's change number when it was created or last changed (``ChatState/versions``).
    var version = 0
    /// The conversation's change number when it was created: a message whose ``version`` is still this one has not
    /// changed since, and a list of changes leaves it out (whoever has it has it as it is).
    var createdVersion = 0
    /// The ids of the last changes applied to it, so that a change sent again is applied once.
    var changeIDs: [String] = []
    /// The members its text mentions (`@nickname`), by user id.
    var mentions: [String] = []
    /// Its files, beside its images.
    var files: [File] = []

    /// The ids of its images and files, which go when it does.
    var blobIDs: [String] { imageIDs + files.map(\.id) }
  }

  /// A file a message carries: its blob's id, the name it was sent with (made safe), its size and content type.
  struct File: Codable, Sendable, Equatable {
    let id: String
    let name: String
    let size: Int
    let contentType: String
  }

  /// One emoji on a message and who chose it.
  struct Reaction: Codable, Sendable, Equatable {
    let emoji: String
    var userIDs: [String]
  }

  var workspaces: [String: Workspace] = [:]
  var conversations: [String: Conversation] = [:]
  /// Every conversation's messages, oldest first.
  var messages: [String: [Message]] = [:]
  /// The last message each member read, by conversation, then user.
  var readPointers: [String: [String: String]] = [:]
  /// Each conversation's change number: one more for each message created, edited, deleted, reacted to or replied
  /// to, which that message then carries; what a client asks for changes since.
  var versions: [String: Int] = [:]
  /// How many messages the backend holds, against ``maxMessages``.
  var messageCount = 0
  /// The last id handed out: ids are `w1`, `c2`, `d3`, … in creation order.
  var lastID = 0

  /// The most workspaces and conversations the backend keeps: a bound on what a client can make it hold.
  static let maxEntities = 10_000
  /// The most messages it keeps.
  static let maxMessages = 200_000

  /// Removes the conversations `ids` with their messages and read pointers; returns their messages' image and file
  /// ids.
  mutating func removeConversations(_ ids: some Sequence<String>) -> [String] {
    var imageIDs: [String] = []
    for id in ids {
      conversations[id] = nil
      let removed = messages.removeValue(forKey: id) ?? []
      messageCount -= removed.count
      imageIDs += removed.flatMap(\.blobIDs)
      readPointers[id] = nil
      versions[id] = nil
    }
    return imageIDs
  }

  /// The next change number of `conversationID`.
  mutating func nextVersion(of conversationID: String) -> Int {
    let version = (versions[conversationID] ?? 0) + 1
    versions[conversationID] = version
    return version
  }

  /// Changes the message `id` of `conversationID` in place, giving it the conversation's next change number; returns
  /// the changed message, or `nil` when there is none of that id.
  mutating func changeMessage(_ id: String, in conversationID: String, _ change: (inout Message) throws -> Void)
    rethrows -> Message?
  {
    guard let index = messages[conversationID]?.firstIndex(where: { $0.id == id }) else { return nil }
    try change(&messages[conversationID]![index])
    messages[conversationID]![index].version = nextVersion(of: conversationID)
    return messages[conversationID]![index]
  }

  /// The messages of `conversationID` after the one `userID` read last that others sent.
  func unreadCount(in conversationID: String, for userID: String) -> Int {
    let all = messages[conversationID] ?? []
    let start =
      readPointers[conversationID]?[userID].flatMap { read in all.firstIndex { $0.id == read } }
      .map { $0 + 1 } ?? 0
    return all[start...].count { $0.senderID != userID }
  }

  /// The messages of `conversationID` after the one `userID` read last that others sent mentioning them, not deleted.
  func unreadMentionCount(in conversationID: String, for userID: String) -> Int {
    let all = messages[conversationID] ?? []
    let start =
      readPointers[conversationID]?[userID].flatMap { read in all.firstIndex { $0.id == read } }
      .map { $0 + 1 } ?? 0
    return all[start...].count { $0.senderID != userID && !$0.deleted && $0.mentions.contains(userID) }
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

extension ChatState {
  private enum CodingKeys: String, CodingKey {
    case workspaces, conversations, messages, readPointers, versions, messageCount, lastID
  }

  /// The state a state file keeps; what a file written before the backend kept it starts empty.
  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    workspaces = try container.decodeIfPresent([String: Workspace].self, forKey: .workspaces) ?? [:]
    conversations = try container.decodeIfPresent([String: Conversation].self, forKey: .conversations) ?? [:]
    messages = try container.decodeIfPresent([String: [Message]].self, forKey: .messages) ?? [:]
    readPointers = try container.decodeIfPresent([String: [String: String]].self, forKey: .readPointers) ?? [:]
    versions = try container.decodeIfPresent([String: Int].self, forKey: .versions) ?? [:]
    messageCount = try container.decodeIfPresent(Int.self, forKey: .messageCount) ?? 0
    lastID = try container.decodeIfPresent(Int.self, forKey: .lastID) ?? 0
  }
}

extension ChatState.Message {
  private enum CodingKeys: String, CodingKey {
    case id, conversationID, clientMessageID, senderID, text, imageIDs, createdAt, seq
    case editedAt, deleted, replyTo, replyCount, lastReplyID, reactions, version, createdVersion, changeIDs
    case mentions, files
  }

  /// A message as a state file keeps it; `seq` 0 when the file was written before messages had one, and what came
  /// later (edits, deletion, replies, reactions) empty when it was written before messages had that.
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
    editedAt = try container.decodeIfPresent(Int64.self, forKey: .editedAt)
    deleted = try container.decodeIfPresent(Bool.self, forKey: .deleted) ?? false
    replyTo = try container.decodeIfPresent(String.self, forKey: .replyTo)
    replyCount = try container.decodeIfPresent(Int.self, forKey: .replyCount) ?? 0
    lastReplyID = try container.decodeIfPresent(String.self, forKey: .lastReplyID)
    reactions = try container.decodeIfPresent([ChatState.Reaction].self, forKey: .reactions) ?? []
    version = try container.decodeIfPresent(Int.self, forKey: .version) ?? 0
    createdVersion = try container.decodeIfPresent(Int.self, forKey: .createdVersion) ?? 0
    changeIDs = try container.decodeIfPresent([String].self, forKey: .changeIDs) ?? []
    mentions = try container.decodeIfPresent([String].self, forKey: .mentions) ?? []
    files = try container.decodeIfPresent([ChatState.File].self, forKey: .files) ?? []
  }
}
