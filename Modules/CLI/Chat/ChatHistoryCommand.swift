import ArgumentParser
import Chat
import Domain
import Foundation
import KeelErrors

/// `keel chat history general`: a conversation's newest messages, caught up with the server first.
struct ChatHistoryCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "history",
    abstract: "Show a conversation's newest messages, oldest first.",
    discussion: """
      Shows what --data-dir keeps at once, caught up with the server; when the server cannot be reached, shows what \
      is kept and exits 69.
      """)

  @Argument(help: "The conversation: a channel (general), a DM partner (@ada), or an id.")
  var conversation: String

  @Option(help: "How many of the newest messages to show, 1 to 1000.")
  var limit = 20

  @OptionGroup var workspace: WorkspaceOption
  @OptionGroup var global: GlobalOptions

  func validate() throws {
    guard (1...1_000).contains(limit) else { throw ValidationError("--limit is a number from 1 to 1000.") }
  }

  func run() async throws {
    try await global.runChat { context in
      let chosen = try await context.workspace(workspace.workspace)
      let target = try await context.conversation(conversation, in: chosen)
      let names = await context.nicknames(in: chosen)
      let open = try await context.chat.open(target.id)
      let status = await open.caughtUp()
      while open.snapshot.messages.count < limit, (try? await open.loadOlder()) == true {}
      let snapshot = open.snapshot
      let messages = snapshot.messages.suffix(limit).map {
        MessageRow($0, names: names, baseURL: context.chat.baseURL, readBy: snapshot.readBy($0))
      }
      await open.close()
      try context.command.output.result(
        ["messages": messages],
        human: messages.isEmpty ? "No messages yet." : messages.map(\.line).joined(separator: "\n"))
      if case .behind(let reason) = status {
        throw CommandFailure(
          .network,
          "These are the messages kept in \(global.dataDirectory.path); catching up failed: \(reason.clause).",
          followsResult: true)
      }
    }
  }
}
