import ArgumentParser
import Chat
import Domain
import Foundation
import KeelErrors

/// `keel chat search deploy --conversation general`: the messages kept in --data-dir that have these words, offline.
struct ChatSearchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search",
    abstract: "Search the messages kept in --data-dir, without the server.",
    discussion: """
      Every word of QUERY must be in a message, as a word or the start of one, in any language, whatever the case or \
      accents. The best matches come first, the newest first among equals, each with its conversation and the words \
      around what matched ([brackets] around each match; with --json, "excerpt" and "highlights", the matched \
      words). Only what --data-dir keeps is searched: the conversations opened or followed here. Works with the \
      server unreachable. 65 for a query with no word; 67 for a --conversation kept nowhere here.
      """)

  @Argument(help: "The words to find.")
  var query: String

  @Option(help: "Only this conversation: a channel (general), a DM partner (@ada), or an id.")
  var conversation: String?

  @Option(help: "How many hits at most, 1 to 100.")
  var limit = 20

  @OptionGroup var global: GlobalOptions

  func validate() throws {
    guard (1...100).contains(limit) else { throw ValidationError("--limit is a number from 1 to 100.") }
  }

  func run() async throws {
    try await global.runChat(check: checkQuery) { context in
      let store = try context.chat.store
      // From the store alone: the server may be unreachable.
      var conversations: [Conversation] = []
      var names: [String: String] = [context.me.id: context.me.nickname]
      for workspace in (try? await store.workspaces()) ?? [] {
        conversations += (try? await store.conversations(in: workspace.id)) ?? []
        for member in (try? await store.members(of: .workspace(workspace.id))) ?? [] where names[member.id] == nil {
          names[member.id] = member.nickname
        }
      }
      let scope = try conversation.map { try Self.kept($0, in: conversations).id }
      let hits = try await context.chat.search(query, in: scope, limit: limit)
      let rows = hits.map { SearchRow($0, conversations: conversations, names: names) }
      try context.command.output.result(
        ["hits": rows],
        human: rows.isEmpty ? "No message kept here has those words." : rows.map(\.line).joined(separator: "\n"))
    }
  }

  /// Refuses a query with no word before anything else happens.
  private func checkQuery() throws {
    guard query.count <= ChatStore.maxSearchLength, query.contains(where: { $0.isLetter || $0.isNumber }) else {
      throw CommandFailure(
        .invalidInput,
        "A search needs a word (letters or digits) and has at most \(ChatStore.maxSearchLength) characters.")
    }
  }

  /// The kept conversation `name` names: its id, a channel's name (`general`, `#general`) or a DM partner's nickname
  /// (`@ada`).
  private static func kept(_ name: String, in conversations: [Conversation]) throws -> Conversation {
    if let byID = conversations.first(where: { $0.id == name }) { return byID }
    let bare = name.hasPrefix("#") || name.hasPrefix("@") ? String(name.dropFirst()) : name
    let kind: Conversation.Kind? = name.hasPrefix("#") ? .channel : name.hasPrefix("@") ? .directMessage : nil
    let named = conversations.filter {
      $0.name.caseInsensitiveCompare(bare) == .orderedSame && (kind == nil || $0.kind == kind)
    }
    guard let only = named.first else {
      throw CommandFailure(
        .notFound, "No conversation \"\(Output.printable(name))\" is kept here; open it once with `keel chat history`.")
    }
    guard named.count == 1 else {
      throw CommandFailure(
        .invalidInput,
        "\"\(Output.printable(name))\" names \(named.count) conversations kept here: "
          + named.map(\.id).joined(separator: ", ") + "; name one by id.")
    }
    return only
  }
}

/// A search hit as `keel chat search` prints it.
struct SearchRow: Encodable {
  let conversationId: String
  /// `#general` or `@ada`, when the conversation is kept.
  let conversation: String?
  let messageId: String?
  let senderId: String
  let sender: String?
  let createdAt: Date
  let excerpt: String
  /// The matched words of the excerpt, in order.
  let highlights: [String]
  /// The excerpt with each match in [brackets], for the line.
  private let marked: String

  init(_ hit: SearchHit, conversations: [Conversation], names: [String: String]) {
    let message = hit.message
    conversationId = message.conversationID
    conversation = conversations.first { $0.id == message.conversationID }.map {
      ($0.kind == .channel ? "#" : "@") + $0.name
    }
    messageId = message.id
    senderId = message.senderID
    sender = names[message.senderID]
    createdAt = message.createdAt
    excerpt = hit.excerpt
    highlights = hit.highlights.map { String(hit.excerpt[$0]) }
    var marked = ""
    var position = hit.excerpt.startIndex
    for range in hit.highlights {
      marked += hit.excerpt[position..<range.lowerBound] + "[" + hit.excerpt[range] + "]"
      position = range.upperBound
    }
    self.marked = marked + hit.excerpt[position...]
  }

  private enum CodingKeys: String, CodingKey {
    case conversationId, conversation, messageId, senderId, sender, createdAt, excerpt, highlights
  }

  /// `#general m7 ada: …the [deploy] went fine`.
  var line: String {
    let place = Output.printable(conversation ?? conversationId)
    return "\(place) \(Output.printable(messageId ?? "-")) \(Output.printable(sender ?? senderId)): "
      + Output.printable(marked)
  }
}
