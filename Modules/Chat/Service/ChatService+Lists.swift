import Domain
import Foundation
import GRDB
import Persistence

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

// MARK: - Lists: the store first, then the server, then every change

extension ChatService {
  /// The user's workspaces by name, live: the stored list at once, then the server's (stored in its place), then the
  /// list again each time it changes — a workspace created, renamed, deleted or joined, here or anywhere (the socket's
  /// pushes, SandboxAPI §7), and after each reconnection. The stream ends when the consumer stops, when the account
  /// ends (``ChatError/Kind/notSignedIn``) or the service shuts down; it throws a ``ChatError`` after the stored list
  /// when the server cannot be reached.
  public func workspaces() -> AsyncThrowingStream<[Workspace], any Error> {
    live(.workspaces, read: { try await $0.workspaces() }, fetch: { [self] in try await refreshWorkspaces() })
  }

  /// Fetches the user's workspaces, keeps them in the store in place of the old list, and returns them.
  ///
  /// - Throws: ``ChatError``.
  @discardableResult
  public func refreshWorkspaces() async throws -> [Workspace] {
    try await keepList("the workspaces") { [self] in
      try await call(.workspaces, as: ChatWire.Workspaces.self, doing: "list the workspaces").workspaces.map(\.record)
    } write: { workspaces, db in
      try ChatStore.replaceWorkspaces(workspaces, db)
    }
  }

  /// A workspace's channels by name, joined and not (`Conversation.joined` tells), each with its unread
  /// count and member count, live as ``workspaces()`` is: a message, a read on another device, a channel created,
  /// renamed, deleted, joined or left changes the list.
  public func channels(in workspaceID: String) -> AsyncThrowingStream<[Conversation], any Error> {
    live(
      .channels(workspaceID: workspaceID), read: { try await $0.conversations(in: workspaceID, kind: .channel) },
      fetch: { [self] in try await refreshChannels(in: workspaceID) })
  }

  /// Fetches a workspace's channels with their unread counts, keeps them, and returns them.
  ///
  /// - Throws: ``ChatError``.
  @discardableResult
  public func refreshChannels(in workspaceID: String) async throws -> [Conversation] {
    try await keepList("the channels") { [self] in
      try await call(
        .channels(workspaceID: workspaceID, joinedOnly: false), as: ChatWire.Channels.self,
        doing: "list the channels"
      ).channels.map(\.record)
    } write: { channels, db in
      try ChatStore.replaceConversations(channels, in: workspaceID, kind: .channel, db)
    }
  }

  /// The user's DM rooms in a workspace by name, each with its unread count and newest message, live as
  /// ``workspaces()`` is: a message, a read on another device, a room opened with the user changes the list.
  public func directMessages(in workspaceID: String) -> AsyncThrowingStream<[DirectMessageRoom], any Error> {
    live(
      .directMessages(workspaceID: workspaceID), read: { [self] in try await rooms(in: workspaceID, of: $0) },
      fetch: { [self] in try await refreshDirectMessages(in: workspaceID) })
  }

  /// Fetches the user's DM rooms in a workspace, keeps them (their members and newest message too), and returns them.
  ///
  /// A newest message stored this way may stand apart from the room's older stored messages until the room is
  /// opened: its catch-up starts from where the last one ended, not from the newest stored message.
  ///
  /// - Throws: ``ChatError``.
  @discardableResult
  public func refreshDirectMessages(in workspaceID: String) async throws -> [DirectMessageRoom] {
    let me = try me()
    return try await keepList("the DM rooms") { [self] in
      try await call(
        .directMessages(workspaceID: workspaceID), as: ChatWire.DirectMessages.self, doing: "list the DM rooms"
      ).dms.map { room in
        DirectMessageRoom(
          conversation: room.record(for: me), members: room.members.map(\.member),
          lastMessage: room.lastMessage?.record)
      }
    } write: { rooms, db in
      // The rooms, their members and their newest messages in one transaction: a list never shows half of them.
      try ChatStore.replaceConversations(rooms.map(\.conversation), in: workspaceID, kind: .directMessage, db)
      for room in rooms {
        try ChatStore.replaceMembers(room.members, of: .conversation(room.conversation.id), db)
        if let last = room.lastMessage { _ = try ChatStore.upsert(last, db) }
      }
    }
  }

  /// Fetches a list and writes it to the account's store in one transaction, unless a push came while it was asked
  /// for (the answer may then be older than what the push wrote, a channel it created or a count it moved): then it
  /// asks again, three times at most, the last answer written whatever came.
  private func keepList<Answer: Sendable>(
    _ what: String, fetch: () async throws -> Answer,
    write: @escaping @Sendable (Answer, Database) throws -> Void
  ) async throws -> Answer {
    let store = try store
    for attempt in 1...3 {
      let heard = pushesHeard.withLock { $0 }
      let answer = try await fetch()
      let kept = try await stored("keep \(what)") {
        try await store.writeLists(
          "store \(what)",
          ifCurrent: { [pushesHeard] in
            attempt == 3 || pushesHeard.withLock { $0 } == heard
          }
        ) { db in try write(answer, db) }
      }
      if kept { return answer }
    }
    preconditionFailure("the third answer is always kept")
  }

  /// The DM rooms of `workspaceID` that `store` holds, each with its members and newest message.
  private func rooms(in workspaceID: String, of store: ChatStore) async throws -> [DirectMessageRoom] {
    try await stored("read the DM rooms") {
      var rooms: [DirectMessageRoom] = []
      for conversation in try await store.conversations(in: workspaceID, kind: .directMessage) {
        rooms.append(
          DirectMessageRoom(
            conversation: conversation, members: try await store.members(of: .conversation(conversation.id)),
            lastMessage: try await store.messages(in: conversation.id, limit: 1).last))
      }
      return rooms
    }
  }
}

// MARK: - Workspaces, channels and DM rooms

extension ChatService {
  /// Creates a workspace the user owns and is the first member of.
  ///
  /// - Throws: ``ChatError/Kind/invalidInput`` for a name that is empty or longer than 100 characters once trimmed,
  ///   before anything is sent; otherwise ``ChatError``.
  public func createWorkspace(named name: String) async throws -> Workspace {
    let store = try store
    let name = try Self.validName(name, of: "workspace")
    let workspace = try await call(.createWorkspace(name: name), as: ChatWire.Workspace.self, doing: "create \(name)")
    try await stored("keep the workspace") { try await store.upsert([workspace.record]) }
    return workspace.record
  }

  /// Renames a workspace the user owns.
  ///
  /// - Throws: as ``createWorkspace(named:)``; ``ChatError/Kind/refused`` (`E403`) for a workspace the user does not
  ///   own.
  public func renameWorkspace(_ workspaceID: String, to name: String) async throws -> Workspace {
    let store = try store
    let name = try Self.validName(name, of: "workspace")
    let workspace = try await call(
      .renameWorkspace(id: workspaceID, name: name), as: ChatWire.Workspace.self, doing: "rename \(workspaceID)")
    try await stored("keep the workspace") { try await store.upsert([workspace.record]) }
    return workspace.record
  }

  /// Deletes a workspace the user owns, with its channels and DM rooms; the store forgets them.
  ///
  /// - Throws: ``ChatError``.
  public func deleteWorkspace(_ workspaceID: String) async throws {
    let store = try store
    _ = try await call(.deleteWorkspace(id: workspaceID), as: Empty.self, doing: "delete \(workspaceID)")
    try await stored("forget the workspace") {
      let remaining = try await store.workspaces().filter { $0.id != workspaceID }
      try await store.replaceWorkspaces(remaining)
      for conversation in try await store.conversations(in: workspaceID) {
        try await store.removeConversation(conversation.id)
      }
    }
  }

  /// A workspace's members, in the order they joined (stored too).
  ///
  /// - Throws: ``ChatError``.
  public func members(ofWorkspace workspaceID: String) async throws -> [Member] {
    let store = try store
    let answer = try await call(
      .workspaceMembers(id: workspaceID), as: ChatWire.Members.self, doing: "list the members of \(workspaceID)")
    let members = answer.members.map(\.member)
    try await stored("keep the members") { try await store.replaceMembers(members, of: .workspace(workspaceID)) }
    return members
  }

  /// Adds the account with `email` to a workspace the user is a member of.
  ///
  /// - Throws: ``ChatError/Kind/invalidInput`` for an email without `@` or longer than 254 characters, before
  ///   anything is sent; ``ChatError/Kind/refused`` (`E404`) when no account has that email.
  public func invite(email: String, to workspaceID: String) async throws {
    let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
    guard email.contains("@"), email.count <= 254 else {
      throw ChatError(.invalidInput, "An invitation needs an email address (with @, at most 254 characters).")
    }
    _ = try await call(
      .invite(workspaceID: workspaceID, email: email), as: ChatWire.Workspace.self,
      doing: "invite a member to \(workspaceID)")
  }

  /// Hands a workspace the user owns to another of its members.
  ///
  /// - Throws: ``ChatError``.
  public func transferWorkspace(_ workspaceID: String, to userID: String) async throws -> Workspace {
    let store = try store
    let workspace = try await call(
      .transferWorkspace(id: workspaceID, to: userID), as: ChatWire.Workspace.self,
      doing: "transfer \(workspaceID)")
    try await stored("keep the workspace") { try await store.upsert([workspace.record]) }
    return workspace.record
  }

  /// Creates a channel in a workspace; the user owns and has joined it.
  ///
  /// - Throws: ``ChatError/Kind/invalidInput`` for a bad name, before anything is sent; ``ChatError/Kind/refused``
  ///   (`E409`) when the workspace has a channel of that name.
  public func createChannel(named name: String, in workspaceID: String) async throws -> Conversation {
    let name = try Self.validName(name, of: "channel")
    return try await keepChannel(
      .createChannel(workspaceID: workspaceID, name: name), doing: "create the channel \(name)")
  }

  /// Renames a channel the user owns.
  ///
  /// - Throws: as ``createChannel(named:in:)``.
  public func renameChannel(_ channelID: String, to name: String) async throws -> Conversation {
    let name = try Self.validName(name, of: "channel")
    return try await keepChannel(.renameChannel(id: channelID, name: name), doing: "rename \(channelID)")
  }

  /// Deletes a channel the user owns; the store forgets it and its sent messages.
  ///
  /// - Throws: ``ChatError``.
  public func deleteChannel(_ channelID: String) async throws {
    let store = try store
    _ = try await call(.deleteChannel(id: channelID), as: Empty.self, doing: "delete \(channelID)")
    try await stored("forget the channel") { try await store.removeConversation(channelID) }
  }

  /// Joins a channel of one of the user's workspaces.
  ///
  /// - Throws: ``ChatError``.
  public func join(_ channelID: String) async throws -> Conversation {
    try await keepChannel(.join(channelID: channelID), doing: "join \(channelID)")
  }

  /// Leaves a channel. An owner who leaves hands it to the member who joined first after them; the store keeps the
  /// channel (now not joined) and forgets its messages.
  ///
  /// - Throws: ``ChatError``.
  public func leave(_ channelID: String) async throws -> Conversation {
    let channel = try await keepChannel(.leave(channelID: channelID), doing: "leave \(channelID)")
    try await stored("forget the channel's messages") { try await store.resetMessages(in: channelID) }
    return channel
  }

  /// Hands a channel the user owns to another of its members.
  ///
  /// - Throws: ``ChatError``.
  public func transferChannel(_ channelID: String, to userID: String) async throws -> Conversation {
    try await keepChannel(.transferChannel(id: channelID, to: userID), doing: "transfer \(channelID)")
  }

  /// A channel's members, in the order they joined (stored too).
  ///
  /// - Throws: ``ChatError``.
  public func members(ofChannel channelID: String) async throws -> [Member] {
    let store = try store
    let answer = try await call(
      .channelMembers(id: channelID), as: ChatWire.Members.self, doing: "list the members of \(channelID)")
    let members = answer.members.map(\.member)
    try await stored("keep the members") { try await store.replaceMembers(members, of: .conversation(channelID)) }
    return members
  }

  /// The DM room with another member of a workspace: found if the two have one (from either side), opened if not.
  ///
  /// - Throws: ``ChatError/Kind/invalidInput`` for the user themselves, before anything is sent; otherwise
  ///   ``ChatError``.
  public func openDirectMessage(with userID: String, in workspaceID: String) async throws -> DirectMessageRoom {
    let store = try store
    let me = try me()
    guard userID != me else { throw ChatError(.invalidInput, "A DM room is with another member, not oneself.") }
    let answer = try await call(
      .openDirectMessage(workspaceID: workspaceID, userID: userID), as: ChatWire.DirectMessageRoom.self,
      doing: "open a DM room with \(userID)")
    let room = DirectMessageRoom(
      conversation: answer.record(for: me), members: answer.members.map(\.member),
      lastMessage: answer.lastMessage?.record)
    try await stored("keep the DM room") {
      try await store.upsert([room.conversation])
      try await store.replaceMembers(room.members, of: .conversation(room.conversation.id))
    }
    return room
  }

  /// Tells the server the user has read a conversation up to `messageID` and keeps the read pointer.
  ///
  /// - Returns: The conversation's unread count now (what others sent after it).
  /// - Throws: ``ChatError``.
  @discardableResult
  public func markRead(_ conversationID: String, upTo messageID: String) async throws -> Int {
    let store = try store
    let answer = try await call(
      .read(conversationID: conversationID, messageID: messageID), as: ChatWire.Unread.self,
      doing: "mark \(conversationID) read")
    // What the server counted, not 0: a read up to a message other than the newest leaves some unread.
    try await stored("keep the read pointer") {
      try await store.applyRead(conversationID, upTo: messageID, unreadCount: answer.unreadCount)
    }
    return answer.unreadCount
  }

  private func keepChannel(_ route: ChatRouter.Route, doing what: String) async throws -> Conversation {
    let store = try store
    let channel = try await call(route, as: ChatWire.Channel.self, doing: what).record
    try await stored("keep the channel") { try await store.upsert([channel]) }
    return channel
  }

  /// `name` trimmed, or ``ChatError/Kind/invalidInput`` when it is empty or longer than 100 characters.
  static func validName(_ name: String, of what: String) throws -> String {
    let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
    guard (1...100).contains(trimmed.count) else {
      throw ChatError(
        .invalidInput, "A \(what) name has 1 to 100 characters once trimmed, not \(trimmed.count); nothing was sent.")
    }
    return trimmed
  }

  /// An answer whose body does not matter (`{}`).
  struct Empty: Decodable, Sendable {}
}
