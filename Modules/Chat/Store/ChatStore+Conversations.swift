import Foundation
import GRDB
import Persistence

extension ChatStore {
  /// Whose members a list is: a workspace's or a conversation's.
  public enum MemberScope: Sendable, Hashable {
    /// The members of a workspace.
    case workspace(String)
    /// The members of a channel or DM room.
    case conversation(String)

    var key: String {
      switch self {
      case .workspace(let id): "workspace:\(id)"
      case .conversation(let id): "conversation:\(id)"
      }
    }
  }

  // MARK: - Workspaces

  /// Replaces the list of the user's workspaces with `workspaces`, as the server just listed them: a workspace no longer
  /// listed is removed.
  public func replaceWorkspaces(_ workspaces: [Workspace]) async throws {
    try await writeLists("store workspaces") { db in try Self.replaceWorkspaces(workspaces, db) }
  }

  static func replaceWorkspaces(_ workspaces: [Workspace], _ db: Database) throws {
    try db.execute(sql: "DELETE FROM workspace")
    for workspace in workspaces { try upsert(workspace, db) }
  }

  /// Stores `workspaces`, each once (by id), keeping the others.
  public func upsert(_ workspaces: [Workspace]) async throws {
    try await writeLists("store workspaces") { db in
      for workspace in workspaces { try Self.upsert(workspace, db) }
    }
  }

  static func upsert(_ workspace: Workspace, _ db: Database) throws {
    try db.execute(
      sql: "INSERT OR REPLACE INTO workspace (id, name, ownerID) VALUES (?, ?, ?)",
      arguments: [workspace.id, workspace.name, workspace.ownerID])
  }

  /// Removes the workspace `id` (deleted, or the user is no longer in it) with its conversations and their messages,
  /// but pending and failed ones, which are the user's.
  public func removeWorkspace(_ id: String) async throws {
    try await writeLists("remove a workspace") { db in
      try db.execute(sql: "DELETE FROM workspace WHERE id = ?", arguments: [id])
      try db.execute(sql: "DELETE FROM member WHERE scope = ?", arguments: [MemberScope.workspace(id).key])
      let conversations = try String.fetchAll(
        db, sql: "SELECT id FROM conversation WHERE workspaceID = ?", arguments: [id])
      for conversation in conversations { try Self.removeConversation(conversation, db) }
    }
  }

  /// The user's workspaces, by name.
  public func workspaces() async throws -> [Workspace] {
    try await read("read workspaces") { db in
      try Row.fetchAll(db, sql: "SELECT * FROM workspace ORDER BY name, id").map {
        Workspace(id: $0["id"], name: $0["name"], ownerID: $0["ownerID"])
      }
    }
  }

  // MARK: - Conversations

  /// Replaces `workspaceID`'s conversations of `kind` with `conversations`, as the server just listed them: one no
  /// longer listed is removed with its messages (but pending and failed ones, which are the user's).
  public func replaceConversations(_ conversations: [Conversation], in workspaceID: String, kind: Conversation.Kind)
    async throws
  {
    try await writeLists("store conversations") { db in
      try Self.replaceConversations(conversations, in: workspaceID, kind: kind, db)
    }
  }

  static func replaceConversations(
    _ conversations: [Conversation], in workspaceID: String, kind: Conversation.Kind, _ db: Database
  ) throws {
    let listed = Set(conversations.map(\.id))
    let stored = try String.fetchAll(
      db, sql: "SELECT id FROM conversation WHERE workspaceID = ? AND kind = ?",
      arguments: [workspaceID, kind.rawValue])
    for gone in stored where !listed.contains(gone) { try removeConversation(gone, db) }
    for conversation in conversations { try upsert(conversation, db) }
  }

  /// Stores `conversations`, each once (by id), keeping when each was last viewed and read.
  public func upsert(_ conversations: [Conversation]) async throws {
    try await writeLists("store conversations") { db in
      for conversation in conversations { try Self.upsert(conversation, db) }
    }
  }

  static func upsert(_ conversation: Conversation, _ db: Database) throws {
    try db.execute(
      sql: """
        INSERT INTO conversation (id, workspaceID, kind, name, joined, ownerID, unreadCount, memberCount,
          unreadMentionCount) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET workspaceID = excluded.workspaceID, kind = excluded.kind,
          name = excluded.name, joined = excluded.joined, ownerID = excluded.ownerID,
          unreadCount = excluded.unreadCount, memberCount = excluded.memberCount,
          unreadMentionCount = excluded.unreadMentionCount
        """,
      arguments: [
        conversation.id, conversation.workspaceID, conversation.kind.rawValue, conversation.name, conversation.joined,
        conversation.ownerID, conversation.unreadCount, conversation.memberCount, conversation.unreadMentionCount,
      ])
  }

  /// `workspaceID`'s conversations, of `kind` or of both, by name.
  public func conversations(in workspaceID: String, kind: Conversation.Kind? = nil) async throws -> [Conversation] {
    try await read("read conversations") { db in
      try Row.fetchAll(
        db,
        sql: "SELECT * FROM conversation WHERE workspaceID = ? AND (? IS NULL OR kind = ?) ORDER BY name, id",
        arguments: [workspaceID, kind?.rawValue, kind?.rawValue]
      ).map(Self.conversation)
    }
  }

  /// The conversation `id`, if stored.
  public func conversation(_ id: String) async throws -> Conversation? {
    try await read("read a conversation") { db in
      try Row.fetchOne(db, sql: "SELECT * FROM conversation WHERE id = ?", arguments: [id]).map(Self.conversation)
    }
  }

  /// Removes the conversation `id` (left or deleted) and its messages, but its pending and failed ones.
  public func removeConversation(_ id: String) async throws {
    try await writeLists("remove a conversation") { db in try Self.removeConversation(id, db) }
  }

  static func removeConversation(_ id: String, _ db: Database) throws {
    try db.execute(sql: "DELETE FROM conversation WHERE id = ?", arguments: [id])
    try db.execute(sql: "DELETE FROM message WHERE conversationID = ? AND state = 'sent'", arguments: [id])
    try db.execute(sql: "DELETE FROM member WHERE scope = ?", arguments: [MemberScope.conversation(id).key])
    try db.execute(sql: "DELETE FROM sync WHERE conversationID = ?", arguments: [id])
    try db.execute(sql: "DELETE FROM readPosition WHERE conversationID = ?", arguments: [id])
  }

  private static func conversation(_ row: Row) -> Conversation {
    Conversation(
      id: row["id"], workspaceID: row["workspaceID"],
      kind: Conversation.Kind(rawValue: row["kind"]) ?? .channel, name: row["name"], joined: row["joined"],
      ownerID: row["ownerID"], unreadCount: row["unreadCount"], memberCount: row["memberCount"],
      unreadMentionCount: row["unreadMentionCount"])
  }

  // MARK: - Read pointers

  /// Records that the user read `conversationID` up to the message `messageID`: its unread counts become 0.
  public func markRead(_ conversationID: String, upTo messageID: String) async throws {
    try await writeLists("mark a conversation read") { db in
      try db.execute(
        sql: "UPDATE conversation SET lastReadMessageID = ?, unreadCount = 0, unreadMentionCount = 0 WHERE id = ?",
        arguments: [messageID, conversationID])
    }
  }

  /// Records a read the server reported (from another of the user's devices, or this one): the read pointer, and the
  /// unread counts the server counted; from a server that does not count mentions, none is left when nothing is
  /// unread, and the count stays otherwise.
  public func applyRead(
    _ conversationID: String, upTo messageID: String, unreadCount: Int, unreadMentionCount: Int? = nil
  ) async throws {
    let mentions = unreadMentionCount ?? (unreadCount <= 0 ? 0 : nil)
    try await writeLists("apply a read") { db in
      try db.execute(
        sql: """
          UPDATE conversation SET lastReadMessageID = ?, unreadCount = ?,
            unreadMentionCount = COALESCE(?, unreadMentionCount) WHERE id = ?
          """,
        arguments: [messageID, max(0, unreadCount), mentions.map { max(0, $0) }, conversationID])
    }
  }

  /// Counts a message new to the store in its conversation's unread count (and its unread mention count when it
  /// mentions the user): one more when someone else sent it; none left when the user did (the server moves a
  /// sender's read pointer to their message). In the same transaction, it indexes for search what the push's write
  /// left unindexed, so that a search finds the message without indexing it first.
  public func countArrival(of message: Message, by userID: String) async throws {
    try await writeLists("count a new message") { db in
      try Self.countArrival(of: message, by: userID, db)
      try Self.indexBacklog(db)
    }
  }

  static func countArrival(of message: Message, by userID: String, _ db: Database) throws {
    guard let id = message.id else { return }
    // Cached, as each pushed message counts.
    if message.senderID == userID {
      try db.cachedStatement(
        sql: "UPDATE conversation SET lastReadMessageID = ?, unreadCount = 0, unreadMentionCount = 0 WHERE id = ?"
      ).execute(arguments: [id, message.conversationID])
    } else {
      try db.cachedStatement(
        sql: """
          UPDATE conversation SET unreadCount = unreadCount + 1, unreadMentionCount = unreadMentionCount + ?
          WHERE id = ?
          """
      ).execute(arguments: [message.mentions.contains(userID) && !message.isDeleted ? 1 : 0, message.conversationID])
    }
  }

  /// The last message the user read in `conversationID`, if any.
  public func lastReadMessageID(in conversationID: String) async throws -> String? {
    try await read("read a read pointer") { db in
      try String.fetchOne(
        db, sql: "SELECT lastReadMessageID FROM conversation WHERE id = ?", arguments: [conversationID])
    }
  }

  // MARK: - Members

  /// Replaces the members of `scope` with `members`.
  public func replaceMembers(_ members: [Member], of scope: MemberScope) async throws {
    try await writeLists("store members") { db in try Self.replaceMembers(members, of: scope, db) }
  }

  static func replaceMembers(_ members: [Member], of scope: MemberScope, _ db: Database) throws {
    try db.execute(sql: "DELETE FROM member WHERE scope = ?", arguments: [scope.key])
    for member in members {
      try db.execute(
        sql: "INSERT OR REPLACE INTO member (scope, userID, nickname, profileURL, email) VALUES (?, ?, ?, ?, ?)",
        arguments: [scope.key, member.id, member.nickname, member.profileImage, member.email])
    }
  }

  /// The members of `scope`, by nickname.
  public func members(of scope: MemberScope) async throws -> [Member] {
    try await read("read members") { db in
      try Row.fetchAll(
        db, sql: "SELECT * FROM member WHERE scope = ? ORDER BY nickname, userID", arguments: [scope.key]
      ).map { row in
        Member(id: row["userID"], nickname: row["nickname"], profileImage: row["profileURL"], email: row["email"])
      }
    }
  }
}
