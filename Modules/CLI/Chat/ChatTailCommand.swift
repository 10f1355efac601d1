import ArgumentParser
import Chat
import Domain
import Foundation
import KeelErrors
import UnixSignals

/// `keel chat tail general`: a conversation's newest messages, then each new one as it arrives, until Ctrl-C.
struct ChatTailCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tail",
    abstract: "Follow a conversation live: its newest messages, then each new one, until Ctrl-C.",
    discussion: """
      Catches up first, then follows the socket; when the connection drops it reconnects by itself, catches up on \
      what came meanwhile, and goes on; a message edited, deleted or reacted to shows again, marked so. With --json, \
      one JSON object per line, its "type" "message" for a new message, "edited", "deleted" or "reaction" for a \
      change of one shown, "typing" when a member begins or stops typing (on standard error without --json). Ends \
      with Ctrl-C (exit 130), or \
      77 when the session ends. Other chat commands on the same --data-dir go on working meanwhile.
      """)

  @Argument(help: "The conversation: a channel (general), a DM partner (@ada), or an id.")
  var conversation: String

  @Option(help: "How many of the newest messages to show before following, 0 to 1000.")
  var last = 10

  @OptionGroup var workspace: WorkspaceOption
  @OptionGroup var global: GlobalOptions

  func validate() throws {
    guard (0...1_000).contains(last) else { throw ValidationError("--last is a number from 0 to 1000.") }
  }

  func run() async throws {
    // Trapped before anything starts, so that Ctrl-C always ends the command through its cleanup.
    let interrupts = await UnixSignalsSequence(trapping: .sigint)
    try await global.runChat(stays: true) { context in
      let chosen = try await context.workspace(workspace.workspace)
      let target = try await context.conversation(conversation, in: chosen)
      let names = await context.nicknames(in: chosen)
      let place = Output.printable(target.kind == .channel ? "#\(target.name)" : "@\(target.name)")
      let following = "keel: following \(place) in \(Output.printable(chosen.name)); Ctrl-C to stop."
      let open = try await context.chat.open(target.id)
      let sessions = context.command.dependencies.sessions
      let stop = await context.untilStopped(interrupts: interrupts) { [last] in
        await withTaskGroup(of: Void.self) { group in
          group.addTask {
            await Self.follow(open, last: last, names: names, context: context, announcing: following)
          }
          group.addTask { await Self.followTyping(open, names: names, output: context.command.output) }
          // The messages end when the conversation closes; the typing then ends too.
          await group.next()
          group.cancelAll()
        }
        // The chat closes the conversations of a session that ended, perhaps before the states tell it here.
        return sessions.currentUser?.id == context.me.id
      }
      await GlobalOptions.finishing("close the conversation", logger: context.command.dependencies.logger) {
        await open.close()
      }
      switch stop {
      case .interrupted:
        throw CommandFailure(.interrupted, "Stopped following \(place).", followsResult: true)
      case .sessionEnded, .finished(false):
        throw CommandFailure.sessionEnded
      case .finished(true):
        return
      }
    }
  }

  /// Prints the newest `last` messages once caught up, then every message newer than the last one printed, as each
  /// snapshot brings them; says on standard error when catching up fails and when it works again.
  ///
  /// `announcing` goes to standard error once the first messages are printed (or catching up failed): not before, so
  /// that a message sent after it is always printed as new, never taken for one of the `last` before it.
  private static func follow(
    _ open: ChatConversation, last: Int, names: [String: String], context: ChatContext, announcing: String
  ) async {
    let output = context.command.output
    var shown: Message.Position?
    /// Every message printed, by id, as it was printed last.
    var printed: [String: Message] = [:]
    /// How far each member had read at the last snapshot, and whether a snapshot was seen (the first one's positions
    /// are where the tail starts, not news).
    var readTo: [String: String] = [:]
    var readSeen = false
    var started = false
    var problem: String?
    for await snapshot in open.snapshots() {
      switch snapshot.status {
      case .stored, .catchingUp:
        guard started else { continue }
      case .behind(let reason):
        if problem != reason { output.note("keel: cannot catch up (\(reason.clause)); trying again.") }
        problem = reason
      case .live:
        if problem != nil { output.note("keel: caught up; following again.") }
        problem = nil
      case .closed:
        return
      }
      let sent = snapshot.messages.filter { $0.state == .sent }
      let fresh = started ? sent.filter { message in shown.map { message.position > $0 } ?? true } : sent.suffix(last)
      if !started { output.note(announcing) }
      started = true
      // What changed about a message printed already: an edit, a deletion, a reaction.
      for message in sent {
        guard let id = message.id, let before = printed[id], let type = TailLine.change(from: before, to: message)
        else { continue }
        printed[id] = message
        let row = MessageRow(message, names: names, baseURL: context.chat.baseURL, readBy: snapshot.readBy(message))
        try? output.result(TailLine(type: type, row: row), human: "(\(type)) " + row.line)
      }
      for message in fresh {
        if let id = message.id { printed[id] = message }
        let row = MessageRow(message, names: names, baseURL: context.chat.baseURL, readBy: snapshot.readBy(message))
        try? output.result(TailLine(type: "message", row: row), human: row.line)
      }
      // How far each member read, once it moves after the first snapshot shown (on standard error without --json).
      let initial = !readSeen
      readSeen = true
      for (user, position) in snapshot.readPositions.sorted(by: { $0.key < $1.key })
      where user != context.me.id && readTo[user] != position.messageID {
        readTo[user] = position.messageID
        guard !initial else { continue }
        let who = names[user] ?? user
        if output.json {
          try? output.result(ReadLine(conversationId: open.id, user: who, messageId: position.messageID), human: "")
        } else {
          output.note("keel: \(who) read up to \(position.messageID).")
        }
      }
      if let newest = sent.last?.position, shown.map({ newest > $0 }) ?? true { shown = newest }
    }
  }
}

extension ChatTailCommand {
  /// Says who begins and stops typing: on standard error for people, as `{"type":"typing",…}` lines with --json.
  fileprivate static func followTyping(_ open: ChatConversation, names: [String: String], output: Output) async {
    var typing: [String] = []
    for await now in open.typingUpdates() {
      let changes =
        now.filter { !typing.contains($0) }.map { ($0, true) }
        + typing.filter { !now.contains($0) }.map {
          ($0, false)
        }
      typing = now
      for (user, isTyping) in changes {
        let who = names[user] ?? user
        if output.json {
          try? output.result(TypingLine(conversationId: open.id, user: who, typing: isTyping), human: "")
        } else {
          output.note("keel: \(who) \(isTyping ? "is typing…" : "stopped typing.")")
        }
      }
    }
  }
}

/// A `tail --json` line saying how far a member has read.
struct ReadLine: Encodable {
  let type = "read"
  let conversationId: String
  /// Their nickname, or their id when it is not known.
  let user: String
  let messageId: String
}

/// A `tail --json` line saying that a member began or stopped typing.
struct TypingLine: Encodable {
  let type = "typing"
  let conversationId: String
  /// Their nickname, or their id when it is not known.
  let user: String
  let typing: Bool
}

/// One line of `tail --json`: a message object with its `type`: `message` for a new one, `edited`, `deleted` or
/// `reaction` for a change of one printed already.
struct TailLine: Encodable {
  let type: String
  let row: MessageRow

  private enum CodingKeys: String, CodingKey { case type }

  func encode(to encoder: any Encoder) throws {
    try row.encode(to: encoder)
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(type, forKey: .type)
  }

  /// What changed from `before` to `after` that a follower is told of, or `nil`.
  static func change(from before: Message, to after: Message) -> String? {
    if after.isDeleted, !before.isDeleted { return "deleted" }
    if after.isDeleted { return nil }
    if after.editedAt != before.editedAt || after.text != before.text { return "edited" }
    if after.reactions != before.reactions { return "reaction" }
    return nil
  }
}
