import ArgumentParser
import Chat
import Domain
import Foundation
import UnixSignals

/// `keel chat watch`: a workspace's channels and DMs, printed again each time any of them changes, until Ctrl-C.
struct ChatWatchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "watch",
    abstract: "Watch a workspace's channels and DMs live: printed once, then again each time one changes.",
    discussion: """
      Prints the workspace's channels (joined or not, members, unread messages) and your DMs (whom with, unread \
      messages, the newest one) once the server has answered, then again every time any of them changes: a message, \
      a read on another device, a DM opened with you, a channel created, renamed, deleted, joined or left, the \
      workspace renamed. With --json, one object per change: {"workspace":{"id","name"},"channels":[{"id","name", \
      "joined","member_count","unread_count"}],"dms":[{"id","with":[nickname],"unread_count","last_message":{"id", \
      "text","sender","created_at"} or null}]}. Ends with Ctrl-C (exit 130), 77 when the session ends, 67 when the \
      workspace is deleted.
      """)

  @OptionGroup var workspace: WorkspaceOption
  @OptionGroup var global: GlobalOptions

  func run() async throws {
    // Trapped before anything starts, so that Ctrl-C always ends the command through its cleanup.
    let interrupts = await UnixSignalsSequence(trapping: .sigint)
    try await global.runChat(stays: true) { context in
      let chosen = try await context.workspace(workspace.workspace)
      let place = Output.printable(chosen.name)
      context.command.output.note("keel: watching \(place); Ctrl-C to stop.")
      // `nil` when the workspace is gone; the error that ended the lists otherwise.
      let stop = await context.untilStopped(interrupts: interrupts) { () -> (any Error)? in
        do {
          try await Self.watch(chosen, context: context)
          return nil
        } catch {
          return error
        }
      }
      switch stop {
      case .interrupted:
        throw CommandFailure(.interrupted, "Stopped watching \(place).", followsResult: true)
      case .sessionEnded:
        throw CommandFailure.sessionEnded
      case .finished(let error as ChatError) where error.kind == .notSignedIn:
        throw CommandFailure.sessionEnded
      case .finished(let error?):
        throw error
      case .finished(nil):
        throw CommandFailure(
          .notFound, "\(place) was deleted; `keel chat workspaces` lists yours.", followsResult: true)
      }
    }
  }

  /// What one of the three live lists gave.
  private enum Update: Sendable {
    case workspaces([Workspace])
    case channels([Conversation])
    case rooms([DirectMessageRoom])
  }

  /// Follows the workspace list, the channels and the DM rooms together; prints the view once each has given the
  /// server's answer (its second value), then each time the view changes. Returns when the workspace is gone.
  private static func watch(_ workspace: Workspace, context: ChatContext) async throws {
    let chat = context.chat
    let (updates, continuation) = AsyncThrowingStream<Update, any Error>.makeStream()
    let forwarding = [
      forward(chat.workspaces(), into: continuation, as: Update.workspaces),
      forward(chat.channels(in: workspace.id), into: continuation, as: Update.channels),
      forward(chat.directMessages(in: workspace.id), into: continuation, as: Update.rooms),
    ]
    defer { for task in forwarding { task.cancel() } }
    var view = WatchView(workspace: workspace, me: context.me.id)
    var answered: [String: Int] = [:]
    var printed: WatchView.Row?
    for try await update in updates {
      switch update {
      case .workspaces(let workspaces):
        answered["workspaces", default: 0] += 1
        guard let current = workspaces.first(where: { $0.id == workspace.id }) else {
          // The stored list may not have it yet; the server's is what says it is gone.
          if answered["workspaces", default: 0] >= 2 { return }
          continue
        }
        view.workspace = current
      case .channels(let channels):
        answered["channels", default: 0] += 1
        view.channels = channels
      case .rooms(let rooms):
        answered["rooms", default: 0] += 1
        view.rooms = rooms
      }
      guard answered.count == 3, answered.values.allSatisfy({ $0 >= 2 }) else { continue }
      let row = view.row
      guard row != printed else { continue }
      // For people, a blank line between one view and the next.
      try context.command.output.result(row, human: (printed == nil ? "" : "\n") + view.lines)
      printed = row
    }
  }

  /// A task that yields each value of `stream` into `continuation` as an update, and its error when it throws.
  private static func forward<Value: Sendable>(
    _ stream: AsyncThrowingStream<Value, any Error>,
    into continuation: AsyncThrowingStream<Update, any Error>.Continuation,
    as update: @escaping @Sendable (Value) -> Update
  ) -> Task<Void, Never> {
    Task {
      do {
        for try await value in stream { continuation.yield(update(value)) }
        continuation.finish(throwing: ChatError(.notSignedIn, "The chat's lists ended with the session."))
      } catch {
        continuation.finish(throwing: error)
      }
    }
  }
}

/// What `keel chat watch` shows of a workspace.
struct WatchView {
  var workspace: Workspace
  let me: String
  var channels: [Conversation] = []
  var rooms: [DirectMessageRoom] = []

  /// The view as `--json` prints it.
  struct Row: Encodable, Equatable {
    struct Workspace: Encodable, Equatable {
      let id: String
      let name: String
    }
    struct Channel: Encodable, Equatable {
      let id: String
      let name: String
      let joined: Bool
      let memberCount: Int
      let unreadCount: Int
    }
    struct Room: Encodable, Equatable {
      let id: String
      /// The other members' nicknames.
      let with: [String]
      let unreadCount: Int
      let lastMessage: LastMessage?

      /// Every key written, `last_message` as `null` for a room without messages.
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(with, forKey: .with)
        try container.encode(unreadCount, forKey: .unreadCount)
        try container.encode(lastMessage, forKey: .lastMessage)
      }

      private enum CodingKeys: String, CodingKey {
        case id, with, unreadCount, lastMessage
      }
    }
    struct LastMessage: Encodable, Equatable {
      /// `nil` for the user's own message not sent yet.
      let id: String?
      let text: String
      /// The sender's nickname, or their id when the room does not name them.
      let sender: String
      let createdAt: Date

      /// Every key written, `id` as `null` for a message not sent yet.
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(text, forKey: .text)
        try container.encode(sender, forKey: .sender)
        try container.encode(createdAt, forKey: .createdAt)
      }

      private enum CodingKeys: String, CodingKey {
        case id, text, sender, createdAt
      }
    }
    let workspace: Workspace
    let channels: [Channel]
    let dms: [Room]
  }

  /// The view's row: channels and DMs in the order their lists give (by name).
  var row: Row {
    Row(
      workspace: Row.Workspace(id: workspace.id, name: workspace.name),
      channels: channels.map { channel in
        Row.Channel(
          id: channel.id, name: channel.name, joined: channel.joined, memberCount: channel.memberCount,
          unreadCount: channel.unreadCount)
      },
      dms: rooms.map { room in
        let names = Dictionary(room.members.map { ($0.id, $0.nickname) }) { first, _ in first }
        return Row.Room(
          id: room.conversation.id,
          with: room.members.filter { $0.id != me }.map(\.nickname),
          unreadCount: room.conversation.unreadCount,
          lastMessage: room.lastMessage.map { message in
            Row.LastMessage(
              id: message.id, text: message.text, sender: names[message.senderID] ?? message.senderID,
              createdAt: message.createdAt)
          })
      })
  }

  /// The view for people: the workspace, then a line per channel and per DM.
  var lines: String {
    func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
    var lines = [
      "\(Output.printable(workspace.name)): \(count(channels.count, "channel")), \(count(rooms.count, "DM"))"
    ]
    let width = channels.map { Output.printable($0.name).count }.max() ?? 0
    for channel in channels {
      let name = Output.printable("#" + channel.name).padding(toLength: width + 1, withPad: " ", startingAt: 0)
      let members = channel.memberCount == 1 ? "1 member" : "\(channel.memberCount) members"
      let unread = channel.unreadCount > 0 ? ", \(channel.unreadCount) unread" : ""
      lines.append("  \(name)  \(channel.joined ? "joined" : "not joined"), \(members)\(unread)")
    }
    for room in rooms {
      let with = room.members.filter { $0.id != me }.map(\.nickname).joined(separator: ", ")
      let unread = room.conversation.unreadCount > 0 ? ", \(room.conversation.unreadCount) unread" : ""
      let last = room.lastMessage.map { message in
        let sender = room.members.first { $0.id == message.senderID }?.nickname ?? message.senderID
        return ": \(sender): \(message.text)"
      }
      lines.append(Output.printable("  @\(with)\(unread)\(last ?? "")"))
    }
    return lines.joined(separator: "\n")
  }
}
