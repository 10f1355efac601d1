import ArgumentParser
import Domain
import Foundation
import Persistence

/// `keel chat`: workspaces, channels, DMs and their messages, on the session of `keel auth login`.
struct ChatCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "chat",
    abstract: "List workspaces, channels and DMs; read, send and follow messages.",
    discussion: """
      Runs as the user `keel auth login` signed in. CONVERSATION is a channel's name (general or #general), a DM \
      partner's nickname or email (@ada), or an id from `channels` or `dms`, in the workspace --workspace names (by \
      default the last one used, else the first). Messages are kept in --data-dir and sent through a durable \
      outbox: one the server cannot take yet waits there and goes with the next chat command.

      Chat commands share --data-dir with each other, not with other commands: `tail` runs until Ctrl-C, and a \
      `send` from a second terminal on the same directory goes through the embedded Sandbox it runs. To chat as \
      two users, give each its own --data-dir and one server: `keel sandbox serve`, then --base-url.
      """,
    subcommands: [
      ChatWorkspacesCommand.self, ChatChannelsCommand.self, ChatDirectMessagesCommand.self, ChatHistoryCommand.self,
      ChatSendCommand.self, ChatTailCommand.self,
    ]
  )
}

/// The `--workspace` option of the commands that work in one workspace.
struct WorkspaceOption: ParsableArguments {
  @Option(help: "The workspace, by id or name; by default the last one used, else the first.")
  var workspace: String?
}

/// What a `keel chat` command runs with: the chat service on its target, and the signed-in user.
struct ChatContext {
  let command: CommandContext
  let chat: ChatService
  let me: SessionUser

  /// The user's workspaces from the server, by name, and the one chat commands use without `--workspace`: the last
  /// one used if it is still there, else the first.
  func workspaces() async throws -> (all: [ChatStore.Workspace], current: ChatStore.Workspace?) {
    let all = try await chat.refreshWorkspaces().sorted { ($0.name, $0.id) < ($1.name, $1.id) }
    return (all, all.first { $0.id == chat.lastWorkspaceID } ?? all.first)
  }

  /// The workspace `requested` names (an id or a name), or else ``workspaces()``'s current one; kept as the last one
  /// used.
  ///
  /// - Throws: ``CommandFailure`` of ``ExitStatus/notFound`` when there is no such workspace, or none at all.
  func workspace(_ requested: String?) async throws -> ChatStore.Workspace {
    let (all, current) = try await workspaces()
    let chosen: ChatStore.Workspace
    if let requested {
      guard
        let named = all.first(where: { $0.id == requested })
          ?? all.first(where: { $0.name.caseInsensitiveCompare(requested) == .orderedSame })
      else {
        throw CommandFailure(
          .notFound, "You are in no workspace \"\(requested)\"; `keel chat workspaces` lists yours.")
      }
      chosen = named
    } else {
      guard let current else {
        throw CommandFailure(.notFound, "You are in no workspace yet: someone must invite \(me.email) to one.")
      }
      chosen = current
    }
    if chosen.id != chat.lastWorkspaceID { try chat.setLastWorkspaceID(chosen.id) }
    return chosen
  }

  /// The conversation `name` names in `workspace`: a conversation id, a channel's name (`general`, `#general`), or a
  /// DM partner's user id, email (`@ada@keel.dev`) or nickname (`@ada`). A nickname is anyone's to take, so one that
  /// several DM partners have is refused rather than guessed.
  ///
  /// - Throws: ``CommandFailure`` of ``ExitStatus/notFound`` when none matches, of ``ExitStatus/invalidInput`` when a
  ///   nickname names more than one DM partner (the candidates listed).
  func conversation(_ name: String, in workspace: ChatStore.Workspace) async throws -> ChatStore.Conversation {
    let channels = try await chat.refreshChannels(in: workspace.id)
    let rooms = try await chat.refreshDirectMessages(in: workspace.id)
    if let channel = channels.first(where: { $0.id == name }) { return channel }
    if let room = rooms.first(where: { $0.conversation.id == name }) { return room.conversation }
    let bare = name.hasPrefix("#") || name.hasPrefix("@") ? String(name.dropFirst()) : name
    if !name.hasPrefix("@"),
      let channel = channels.first(where: { $0.name.caseInsensitiveCompare(bare) == .orderedSame })
    {
      return channel
    }
    // A DM is named after its other member: by id, by email (`@ada@keel.dev`), or by nickname, which anyone may take.
    func others(_ room: DirectMessageRoom) -> [ChatStore.Member] { room.members.filter { $0.userID != me.id } }
    if let room = rooms.first(where: { room in
      others(room).contains { $0.userID == bare || $0.email?.caseInsensitiveCompare(bare) == .orderedSame }
    }) {
      return room.conversation
    }
    let named = rooms.filter { room in
      others(room).contains { $0.nickname.caseInsensitiveCompare(bare) == .orderedSame }
        || room.conversation.name.caseInsensitiveCompare(bare) == .orderedSame
    }
    guard named.count <= 1 else {
      let partners = named.flatMap(others)
      let candidates = partners.map { "\($0.nickname)\($0.email.map { " <\($0)>" } ?? "") (\($0.userID))" }
      throw CommandFailure(
        .invalidInput,
        "\"\(name)\" names \(named.count) people you have DMs with in \(workspace.name): "
          + "\(candidates.joined(separator: ", ")); name one by email or id, such as "
          + "@\(partners.first.map { $0.email ?? $0.userID } ?? bare).")
    }
    guard let room = named.first else {
      throw CommandFailure(
        .notFound,
        "\(workspace.name) has no channel or DM \"\(name)\"; `keel chat channels` and `keel chat dms` list them.")
    }
    return room.conversation
  }

  /// The nicknames of `workspace`'s members by user id; empty when they cannot be read (ids show instead).
  func nicknames(in workspace: ChatStore.Workspace) async -> [String: String] {
    guard let members = try? await chat.members(ofWorkspace: workspace.id) else { return [:] }
    return Dictionary(members.map { ($0.userID, $0.nickname) }) { first, _ in first }
  }
}

extension GlobalOptions {
  /// Runs a `keel chat` command: signed in, on a chat backend, sharing the data directory with the other chat
  /// commands (`stays` for one that runs until stopped); the chat's outbox and socket are shut down at the end. `check`
  /// runs before anything else.
  func runChat(
    stays: Bool = false, check: () throws -> Void = {}, _ body: (ChatContext) async throws -> Void
  ) async throws {
    try await run(sharing: stays ? .staying : .briefly, check: check) { context in
      try context.requireBackend(for: "The chat")
      guard let me = context.dependencies.sessions.currentUser else {
        throw CommandFailure(.auth, "Nobody is signed in: sign in with keel auth login --email EMAIL.")
      }
      let chat = try context.dependencies.chat
      do {
        try await body(ChatContext(command: context, chat: chat, me: me))
      } catch {
        await context.dependencies.shutDown()
        throw error
      }
      await context.dependencies.shutDown()
    }
  }
}
