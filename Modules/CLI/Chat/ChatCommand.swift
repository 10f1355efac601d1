import ArgumentParser
import Chat
import Domain
import Foundation
import KeelConcurrency
import Logging
import UnixSignals

/// `keel chat`: workspaces, channels, DMs and their messages, on the session of `keel auth login`.
struct ChatCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "chat",
    abstract: "List workspaces, channels and DMs; read, send, change and follow messages.",
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
      ChatSendCommand.self, ChatEditCommand.self, ChatDeleteCommand.self, ChatReactCommand.self, ChatSearchCommand.self,
      ChatTailCommand.self, ChatDownloadCommand.self,
      ChatWatchCommand.self, ChatChannelCommand.self, ChatWorkspaceCommand.self,
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

  /// The workspace `requested` names (an id or a name), or else the last one used, else the first by name; kept as
  /// the last one used (`ChatService.workspace(named:)`).
  ///
  /// - Throws: ``CommandFailure`` of ``ExitStatus/notFound`` when there is no such workspace, or none at all.
  func workspace(_ requested: String?) async throws -> Workspace {
    do {
      return try await chat.workspace(named: requested)
    } catch let error as ChatError where error.kind == .notFound {
      throw CommandFailure(
        .notFound,
        requested == nil
          ? "You are in no workspace yet: someone must invite \(me.email) to one."
          : "You are in no workspace \"\(requested ?? "")\"; `keel chat workspaces` lists yours.")
    }
  }

  /// The conversation `name` names in `workspace` (`ChatService.conversation(named:in:)`): a conversation id, a
  /// channel's name (`general`, `#general`), or a DM partner's user id, email (`@ada@keel.dev`) or nickname (`@ada`);
  /// with `openingDirectMessage`, a member of the workspace with no DM yet gets one.
  ///
  /// - Throws: ``CommandFailure`` of ``ExitStatus/notFound`` when none matches, of ``ExitStatus/invalidInput`` when a
  ///   nickname names more than one DM partner (the candidates listed).
  func conversation(
    _ name: String, in workspace: Workspace, openingDirectMessage: Bool = false
  ) async throws -> Conversation {
    do {
      return try await chat.conversation(named: name, in: workspace.id, openingDirectMessage: openingDirectMessage)
    } catch let error as ChatError where error.kind == .notFound {
      throw CommandFailure(
        .notFound,
        "\(workspace.name) has no channel or DM \"\(name)\"; `keel chat channels` and `keel chat dms` list them.")
    } catch let error as ChatError where error.kind == .ambiguous {
      throw CommandFailure(.invalidInput, "In \(workspace.name), \(error.description)")
    }
  }

  /// How a command that follows something live ended.
  enum Stop<Outcome: Sendable>: Sendable {
    /// Ctrl-C.
    case interrupted
    /// The session ended: signed out, or refused by the server.
    case sessionEnded
    /// What it followed ended first, with this outcome.
    case finished(Outcome)
  }

  /// Runs `follow` until it returns, a Ctrl-C comes on `interrupts`, or the signed-in user is no longer this
  /// context's; whichever is first ends the others.
  func untilStopped<Outcome: Sendable>(
    interrupts: UnixSignalsSequence, _ follow: @escaping @Sendable () async -> Outcome
  ) async -> Stop<Outcome> {
    let sessions = command.dependencies.sessions
    let me = me.id
    return await withTaskGroup(of: Stop<Outcome>.self) { group in
      group.addTask {
        for await _ in interrupts { return .interrupted }
        return .interrupted
      }
      group.addTask {
        for await _ in sessions.states() where sessions.currentUser?.id != me { return .sessionEnded }
        return .sessionEnded
      }
      group.addTask { .finished(await follow()) }
      let first = await group.next() ?? .interrupted
      command.dependencies.logger.debug("Stopping: \(first).")
      group.cancelAll()
      return first
    }
  }

  /// The nicknames of `workspace`'s members by user id; empty when they cannot be read (ids show instead).
  func nicknames(in workspace: Workspace) async -> [String: String] {
    guard let members = try? await chat.members(ofWorkspace: workspace.id) else { return [:] }
    return Dictionary(members.map { ($0.id, $0.nickname) }) { first, _ in first }
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
      try context.requireBackend(for: "use the chat")
      guard let me = context.dependencies.sessions.currentUser else {
        throw CommandFailure(.auth, "Nobody is signed in: sign in with keel auth login --email EMAIL.")
      }
      let chat = try context.dependencies.chat
      let dependencies = context.dependencies
      do {
        try await body(ChatContext(command: context, chat: chat, me: me))
      } catch {
        await Self.finishing("shut the chat down", logger: dependencies.logger) { await dependencies.shutDown() }
        throw error
      }
      await Self.finishing("shut the chat down", logger: dependencies.logger) { await dependencies.shutDown() }
    }
  }

  /// Runs `cleanup` (closing what a command opened, shutting the chat down) and waits for it `limit` at the most: a
  /// command whose work is over ends, whatever holds the cleanup up, which is logged as a warning; what the outbox had
  /// not sent stays in it for the next command.
  static func finishing(
    _ what: String, within limit: Duration = .seconds(15), logger: Logger,
    _ cleanup: @escaping @Sendable () async -> Void
  ) async {
    logger.debug("Starting to \(what).")
    let finished = OneShot<Bool>()
    let work = Task {
      await cleanup()
      finished.fulfill(true)
    }
    let timer = Task {
      try? await Task.sleep(for: limit)
      finished.fulfill(false)
    }
    if await finished.value() {
      timer.cancel()
      logger.debug("Done: \(what).")
    } else {
      work.cancel()
      logger.warning("Could not \(what) within \(limit); ending anyway.")
    }
  }
}
