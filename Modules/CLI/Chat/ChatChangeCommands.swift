import ArgumentParser
import Chat
import Domain
import Foundation
import KeelErrors

/// `keel chat edit general m5 "Hello, all"`: a new text for one's own message.
struct ChatEditCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "edit",
    abstract: "Change the text of one of your messages, and wait until the server has it.",
    discussion: ChatChange.discussion)

  @Argument(help: "The conversation: a channel (general), a DM partner (@ada), or an id.")
  var conversation: String

  @Argument(help: "The message's id, as `history --json` shows it.")
  var messageID: String

  @Argument(help: "The new text.")
  var text: String

  @OptionGroup var change: ChatChange
  @OptionGroup var global: GlobalOptions

  func validate() throws { try change.validate() }

  func run() async throws {
    try await global.runChat(check: checkText) { context in
      try await change.run(conversation, messageID, in: context, done: "Edited") { chat, message in
        try await chat.edit(message, text: text)
      }
    }
  }

  /// Refuses a text no message may have, before anything else happens.
  private func checkText() throws { try ChatService.validate(text, images: []) }
}

/// `keel chat delete general m5`: one's own message becomes a tombstone everywhere.
struct ChatDeleteCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete",
    abstract: "Delete one of your messages (its text, images and reactions), and wait until the server has it.",
    discussion: ChatChange.discussion)

  @Argument(help: "The conversation: a channel (general), a DM partner (@ada), or an id.")
  var conversation: String

  @Argument(help: "The message's id, as `history --json` shows it.")
  var messageID: String

  @OptionGroup var change: ChatChange
  @OptionGroup var global: GlobalOptions

  func validate() throws { try change.validate() }

  func run() async throws {
    try await global.runChat { context in
      try await change.run(conversation, messageID, in: context, done: "Deleted") { chat, message in
        try await chat.delete(message)
      }
    }
  }
}

/// `keel chat react general m5 👍`: one's reaction on any message, or `--remove` to take it away.
struct ChatReactCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "react",
    abstract: "Add your reaction (one emoji) to a message, or take it away with --remove.",
    discussion: ChatChange.discussion)

  @Argument(help: "The conversation: a channel (general), a DM partner (@ada), or an id.")
  var conversation: String

  @Argument(help: "The message's id, as `history --json` shows it.")
  var messageID: String

  @Argument(help: "One emoji.")
  var emoji: String

  @Flag(help: "Take your reaction away instead.")
  var remove = false

  @OptionGroup var change: ChatChange
  @OptionGroup var global: GlobalOptions

  func validate() throws { try change.validate() }

  func run() async throws {
    try await global.runChat(check: checkEmoji) { context in
      try await change.run(conversation, messageID, in: context, done: remove ? "Took away" : "Reacted to") {
        chat, message in
        try await remove ? chat.removeReaction(emoji, from: message) : chat.react(emoji, to: message)
      }
    }
  }

  /// Refuses what is not one emoji, before anything else happens.
  private func checkEmoji() throws { try ChatService.validate(emoji: emoji) }
}

/// What `edit`, `delete` and `react` share: the workspace, the wait, and how a change is found, made and waited for.
struct ChatChange: ParsableArguments {
  static let discussion = """
    The change is kept in the outbox in --data-dir first and sent after what waits there. Exits 0 once the server \
    has it; 77 for another member's message (which only its sender may edit or delete), 67 for a message the \
    conversation does not have (or a deleted one), 65 for a text or an emoji that cannot be sent, before anything \
    is sent; 69 when the server cannot be reached within --timeout, and then the change waits in the outbox for the \
    next chat command.
    """

  @Option(help: "Seconds to wait for the server to take the change.")
  var timeout: Double = 30

  @OptionGroup var workspace: WorkspaceOption

  func validate() throws {
    guard timeout > 0, timeout <= 3_600 else { throw ValidationError("--timeout is a number of seconds, 0 to 3600.") }
  }

  /// Finds the message `messageID` of `conversation`, makes the change `make` makes of it, and waits for the server.
  func run(
    _ conversation: String, _ messageID: String, in context: ChatContext, done: String,
    _ make: @Sendable (ChatService, Message) async throws -> MessageChange
  ) async throws {
    let chosen = try await context.workspace(workspace.workspace)
    let target = try await context.conversation(conversation, in: chosen)
    let message = try await context.message(messageID, in: target)
    let change = try await make(context.chat, message)
    let place = Output.printable(target.kind == .channel ? "#\(target.name)" : "@\(target.name)")
    guard try await applied(change, in: context.chat) else {
      let problem = context.chat.outboxProblem.map { ": \($0.clause)" } ?? ""
      throw CommandFailure(
        .network,
        "The server did not take the change within \(Int(timeout)) s\(problem). It waits in the outbox in "
          + "\(context.command.options.dataDirectory.path) and goes with the next keel chat command.")
    }
    let names = await context.nicknames(in: chosen)
    let now = (try? await context.chat.message(id: messageID)) ?? message
    let row = MessageRow(now, names: names, baseURL: context.chat.baseURL)
    try context.command.output.result(row, human: "\(done) \(Output.printable(messageID)) in \(place).")
  }

  /// Whether the server took `change` within --timeout; throws its refusal.
  private func applied(_ change: MessageChange, in chat: ChatService) async throws -> Bool {
    try await withThrowingTaskGroup(of: Bool.self) { group in
      group.addTask { try await chat.outcome(of: change) }
      group.addTask { [timeout] in
        try? await Task.sleep(for: .milliseconds(Int64(timeout * 1_000)))
        return false
      }
      let first = try await group.next() ?? false
      group.cancelAll()
      return first
    }
  }
}

extension ChatContext {
  /// The message `id` of `conversation`, from the store, or from the server once the conversation caught up.
  ///
  /// - Throws: ``CommandFailure`` of ``ExitStatus/notFound`` when the conversation has no such message.
  func message(_ id: String, in conversation: Conversation) async throws -> Message {
    if let stored = try await chat.message(id: id), stored.conversationID == conversation.id { return stored }
    let open = try await chat.open(conversation.id)
    _ = await open.caughtUp()
    await open.close()
    guard let caught = try await chat.message(id: id), caught.conversationID == conversation.id else {
      let place = conversation.kind == .channel ? "#\(conversation.name)" : "@\(conversation.name)"
      throw CommandFailure(
        .notFound,
        "\(Output.printable(place)) has no message \(Output.printable(id)) kept here; "
          + "`keel chat history --json` shows its messages' ids.")
    }
    return caught
  }
}
