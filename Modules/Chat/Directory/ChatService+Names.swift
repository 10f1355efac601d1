import Domain
import Foundation

extension ChatService {
  /// The workspace `name` names among the user's, from the server: an id, or a name in any case; `nil` names the
  /// last one used (``lastWorkspaceID``) if it is still there, else the first by name. The one chosen becomes the last
  /// one used.
  ///
  /// - Throws: ``ChatError`` of kind `ChatError.Kind.notFound` when there is no such workspace, or none at all;
  ///   the kinds a list throws when the server cannot be reached.
  public func workspace(named name: String?) async throws -> Workspace {
    let (all, current) = try await workspacesByName()
    let chosen: Workspace
    if let name {
      guard
        let named = all.first(where: { $0.id == name })
          ?? all.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame })
      else {
        throw ChatError(.notFound, "You are in no workspace \"\(name)\".")
      }
      chosen = named
    } else {
      guard let current else {
        throw ChatError(.notFound, "You are in no workspace yet: someone must invite you to one.")
      }
      chosen = current
    }
    if chosen.id != lastWorkspaceID { try setLastWorkspaceID(chosen.id) }
    return chosen
  }

  /// The user's workspaces from the server, by name, and the current one: the last one used (``lastWorkspaceID``) if
  /// it is still there, else the first.
  ///
  /// - Throws: as ``refreshWorkspaces()``.
  public func workspacesByName() async throws -> (all: [Workspace], current: Workspace?) {
    let all = try await refreshWorkspaces().sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    return (all, all.first { $0.id == lastWorkspaceID } ?? all.first)
  }

  /// The conversation `name` names in the workspace `workspaceID`, from the server: a conversation id, a channel's
  /// name (`general`, `#general`), or a DM partner's user id, email (`@ada@keel.dev`) or nickname (`@ada`). A
  /// nickname is anyone's to take, so one that several DM partners have is refused rather than guessed.
  ///
  /// ```swift
  /// func general(_ chat: ChatService, in workspace: String) async throws -> ChatConversation {
  ///   try await chat.open(try await chat.conversation(named: "#general", in: workspace).id)
  /// }
  /// ```
  ///
  /// - Throws: ``ChatError`` of kind `ChatError.Kind.notFound` when nothing matches; of kind
  ///   `ChatError.Kind.ambiguous` when a nickname names more than one DM partner, with them in
  ///   ``ChatError/candidates``; the kinds a list throws when the server cannot be reached.
  public func conversation(named name: String, in workspaceID: String) async throws -> Conversation {
    let me = try accounts.me()
    let channels = try await refreshChannels(in: workspaceID)
    let rooms = try await refreshDirectMessages(in: workspaceID)
    if let channel = channels.first(where: { $0.id == name }) { return channel }
    if let room = rooms.first(where: { $0.conversation.id == name }) { return room.conversation }
    let bare = name.hasPrefix("#") || name.hasPrefix("@") ? String(name.dropFirst()) : name
    if !name.hasPrefix("@"),
      let channel = channels.first(where: { $0.name.caseInsensitiveCompare(bare) == .orderedSame })
    {
      return channel
    }
    // A DM is named after its other member: by id, by email (`@ada@keel.dev`), or by nickname, which anyone may take.
    func others(_ room: DirectMessageRoom) -> [Member] { room.members.filter { $0.id != me } }
    if let room = rooms.first(where: { room in
      others(room).contains { $0.id == bare || $0.email?.caseInsensitiveCompare(bare) == .orderedSame }
    }) {
      return room.conversation
    }
    let named = rooms.filter { room in
      others(room).contains { $0.nickname.caseInsensitiveCompare(bare) == .orderedSame }
        || room.conversation.name.caseInsensitiveCompare(bare) == .orderedSame
    }
    guard named.count <= 1 else {
      let partners = named.flatMap(others)
      let listed = partners.map { "\($0.nickname)\($0.email.map { " <\($0)>" } ?? "") (\($0.id))" }
      var error = ChatError(
        .ambiguous,
        "\"\(name)\" names \(named.count) people you have DMs with: \(listed.joined(separator: ", ")); name one by "
          + "email or id, such as @\(partners.first.map { $0.email ?? $0.id } ?? bare).")
      error.candidates = partners
      throw error
    }
    guard let room = named.first else {
      throw ChatError(.notFound, "There is no channel or DM \"\(name)\" here.")
    }
    return room.conversation
  }

  /// The conversation `name` names, as ``conversation(named:in:)`` finds it, or, for `@member` when the user has no
  /// DM with them yet, the DM room opened with the workspace's member of that id, email or nickname.
  ///
  /// - Throws: as ``conversation(named:in:)``; `ChatError.Kind.notFound` when no member of the workspace has that
  ///   name either, `ChatError.Kind.ambiguous` when several members have that nickname.
  public func conversation(
    named name: String, in workspaceID: String, openingDirectMessage: Bool
  ) async throws -> Conversation {
    do {
      return try await conversation(named: name, in: workspaceID)
    } catch let error as ChatError where error.kind == .notFound && openingDirectMessage && name.hasPrefix("@") {
      let member = try await self.member(named: String(name.dropFirst()), in: workspaceID)
      return try await openDirectMessage(with: member.id, in: workspaceID).conversation
    }
  }

  /// The workspace's member `name` names, other than the user: by id, by email, or by nickname (which anyone may take,
  /// so one that several members have is refused rather than guessed).
  ///
  /// - Throws: `ChatError.Kind.notFound` when none has it; `ChatError.Kind.ambiguous` (with ``ChatError/candidates``)
  ///   when several have that nickname; the kinds a list throws when the server cannot be reached.
  public func member(named name: String, in workspaceID: String) async throws -> Member {
    let me = try accounts.me()
    let members = try await members(ofWorkspace: workspaceID).filter { $0.id != me }
    if let member = members.first(where: {
      $0.id == name || $0.email?.caseInsensitiveCompare(name) == .orderedSame
    }) {
      return member
    }
    let named = members.filter { $0.nickname.caseInsensitiveCompare(name) == .orderedSame }
    guard named.count <= 1 else {
      let listed = named.map { "\($0.nickname)\($0.email.map { " <\($0)>" } ?? "") (\($0.id))" }
      var error = ChatError(
        .ambiguous,
        "\"\(name)\" names \(named.count) members: \(listed.joined(separator: ", ")); name one by email or id.")
      error.candidates = named
      throw error
    }
    guard let member = named.first else {
      throw ChatError(.notFound, "No other member of this workspace is \"\(name)\".")
    }
    return member
  }
}
