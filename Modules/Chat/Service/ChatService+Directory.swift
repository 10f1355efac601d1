import Domain
import Foundation
import Persistence

// MARK: - The directory (`ChatDirectory`): lists, workspaces, channels, DM rooms and members

extension ChatService {
  /// The user's workspaces by name, live: the stored list at once, then the server's (stored in its place), then the
  /// list again each time it changes — a workspace created, renamed, deleted or joined, here or anywhere (the socket's
  /// pushes, SandboxAPI §7), and after each reconnection. The stream ends when the consumer stops, when the account
  /// ends (`ChatError.Kind.notSignedIn`) or the service shuts down; it throws a ``ChatError`` after the stored list
  /// when the server cannot be reached.
  public func workspaces() -> AsyncThrowingStream<[Workspace], any Error> {
    directory.workspaces()
  }

  /// Fetches the user's workspaces, keeps them in the store in place of the old list, and returns them.
  ///
  /// - Throws: ``ChatError``.
  @discardableResult
  public func refreshWorkspaces() async throws -> [Workspace] {
    try await directory.refreshWorkspaces()
  }

  /// A workspace's channels by name, joined and not (`Conversation.joined` tells), each with its unread
  /// count and member count, live as ``workspaces()`` is: a message, a read on another device, a channel created,
  /// renamed, deleted, joined or left changes the list.
  public func channels(in workspaceID: String) -> AsyncThrowingStream<[Conversation], any Error> {
    directory.channels(in: workspaceID)
  }

  /// Fetches a workspace's channels with their unread counts, keeps them, and returns them.
  ///
  /// - Throws: ``ChatError``.
  @discardableResult
  public func refreshChannels(in workspaceID: String) async throws -> [Conversation] {
    try await directory.refreshChannels(in: workspaceID)
  }

  /// The user's DM rooms in a workspace by name, each with its unread count and newest message, live as
  /// ``workspaces()`` is: a message, a read on another device, a room opened with the user changes the list.
  public func directMessages(in workspaceID: String) -> AsyncThrowingStream<[DirectMessageRoom], any Error> {
    directory.directMessages(in: workspaceID)
  }

  /// Fetches the user's DM rooms in a workspace, keeps them (their members and newest message too), and returns them.
  ///
  /// A newest message stored this way may stand apart from the room's older stored messages until the room is
  /// opened: its catch-up starts from where the last one ended, not from the newest stored message.
  ///
  /// - Throws: ``ChatError``.
  @discardableResult
  public func refreshDirectMessages(in workspaceID: String) async throws -> [DirectMessageRoom] {
    try await directory.refreshDirectMessages(in: workspaceID)
  }

  /// Creates a workspace the user owns and is the first member of.
  ///
  /// - Throws: `ChatError.Kind.invalidInput` for a name that is empty or longer than 100 characters once trimmed,
  ///   before anything is sent; otherwise ``ChatError``.
  public func createWorkspace(named name: String) async throws -> Workspace {
    try await directory.createWorkspace(named: name)
  }

  /// Renames a workspace the user owns.
  ///
  /// - Throws: as ``createWorkspace(named:)``; `ChatError.Kind.refused` (`E403`) for a workspace the user does not
  ///   own.
  public func renameWorkspace(_ workspaceID: String, to name: String) async throws -> Workspace {
    try await directory.renameWorkspace(workspaceID, to: name)
  }

  /// Deletes a workspace the user owns, with its channels and DM rooms; the store forgets them.
  ///
  /// - Throws: ``ChatError``.
  public func deleteWorkspace(_ workspaceID: String) async throws {
    try await directory.deleteWorkspace(workspaceID)
  }

  /// A workspace's members, in the order they joined (stored too).
  ///
  /// - Throws: ``ChatError``.
  public func members(ofWorkspace workspaceID: String) async throws -> [Member] {
    try await directory.members(ofWorkspace: workspaceID)
  }

  /// Adds the account with `email` to a workspace the user is a member of.
  ///
  /// - Throws: `ChatError.Kind.invalidInput` for an email without `@` or longer than 254 characters, before
  ///   anything is sent; `ChatError.Kind.refused` (`E404`) when no account has that email.
  public func invite(email: String, to workspaceID: String) async throws {
    try await directory.invite(email: email, to: workspaceID)
  }

  /// Hands a workspace the user owns to another of its members.
  ///
  /// - Throws: ``ChatError``.
  public func transferWorkspace(_ workspaceID: String, to userID: String) async throws -> Workspace {
    try await directory.transferWorkspace(workspaceID, to: userID)
  }

  /// Creates a channel in a workspace; the user owns and has joined it.
  ///
  /// - Throws: `ChatError.Kind.invalidInput` for a bad name, before anything is sent; `ChatError.Kind.refused`
  ///   (`E409`) when the workspace has a channel of that name.
  public func createChannel(named name: String, in workspaceID: String) async throws -> Conversation {
    try await directory.createChannel(named: name, in: workspaceID)
  }

  /// Renames a channel the user owns.
  ///
  /// - Throws: as ``createChannel(named:in:)``.
  public func renameChannel(_ channelID: String, to name: String) async throws -> Conversation {
    try await directory.renameChannel(channelID, to: name)
  }

  /// Deletes a channel the user owns; the store forgets it and its sent messages.
  ///
  /// - Throws: ``ChatError``.
  public func deleteChannel(_ channelID: String) async throws {
    try await directory.deleteChannel(channelID)
  }

  /// Joins a channel of one of the user's workspaces.
  ///
  /// - Throws: ``ChatError``.
  public func join(_ channelID: String) async throws -> Conversation {
    try await directory.join(channelID)
  }

  /// Leaves a channel. An owner who leaves hands it to the member who joined first after them; the store keeps the
  /// channel (now not joined) and forgets its messages.
  ///
  /// - Throws: ``ChatError``.
  public func leave(_ channelID: String) async throws -> Conversation {
    try await directory.leave(channelID)
  }

  /// Hands a channel the user owns to another of its members.
  ///
  /// - Throws: ``ChatError``.
  public func transferChannel(_ channelID: String, to userID: String) async throws -> Conversation {
    try await directory.transferChannel(channelID, to: userID)
  }

  /// A channel's members, in the order they joined (stored too).
  ///
  /// - Throws: ``ChatError``.
  public func members(ofChannel channelID: String) async throws -> [Member] {
    try await directory.members(ofChannel: channelID)
  }

  /// The DM room with another member of a workspace: found if the two have one (from either side), opened if not.
  ///
  /// - Throws: `ChatError.Kind.invalidInput` for the user themselves, before anything is sent; otherwise
  ///   ``ChatError``.
  public func openDirectMessage(with userID: String, in workspaceID: String) async throws -> DirectMessageRoom {
    try await directory.openDirectMessage(with: userID, in: workspaceID)
  }

  /// Tells the server the user has read a conversation up to `messageID` and keeps the read pointer.
  ///
  /// - Returns: The conversation's unread count now (what others sent after it).
  /// - Throws: ``ChatError``.
  @discardableResult
  public func markRead(_ conversationID: String, upTo messageID: String) async throws -> Int {
    try await directory.markRead(conversationID, upTo: messageID)
  }
}
