import ArgumentParser
import Chat
import Domain
import Foundation

/// `keel chat workspaces`: the workspaces the user is in, the current one marked.
struct ChatWorkspacesCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "workspaces", abstract: "List your workspaces; * marks the one chat commands use by default.")

  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.runChat { context in
      let (workspaces, current) = try await context.chat.workspacesByName()
      let rows = workspaces.map { workspace in
        WorkspaceRow(
          id: workspace.id, name: workspace.name, ownerId: workspace.ownerID, isCurrent: workspace.id == current?.id)
      }
      let lines = rows.map { row in
        "\(row.isCurrent ? "*" : " ") \(row.id)  \(Output.printable(row.name))"
          + (row.ownerId == context.me.id ? "  (yours)" : "")
      }
      try context.command.output.result(
        ["workspaces": rows], human: lines.isEmpty ? "You are in no workspace yet." : lines.joined(separator: "\n"))
    }
  }
}

/// A workspace, as `--json` prints it.
struct WorkspaceRow: Encodable {
  let id: String
  let name: String
  let ownerId: String
  /// Whether chat commands use it when no --workspace is given.
  let isCurrent: Bool
}

/// `keel chat channels`: a workspace's channels, joined or not, with unread counts.
struct ChatChannelsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "channels", abstract: "List a workspace's channels, joined and not, with their unread messages.")

  @OptionGroup var workspace: WorkspaceOption
  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.runChat { context in
      let chosen = try await context.workspace(workspace.workspace)
      let channels = try await context.chat.refreshChannels(in: chosen.id)
      let width = channels.map(\.name.count).max() ?? 0
      let lines = channels.map { channel in
        let name = Output.printable("#" + channel.name).padding(toLength: width + 1, withPad: " ", startingAt: 0)
        let mentions = channel.unreadMentionCount > 0 ? ", \(channel.unreadMentionCount) mentioning you" : ""
        let unread = channel.unreadCount > 0 ? "  \(channel.unreadCount) unread\(mentions)" : ""
        return "\(name)  \(channel.id)  \(channel.joined ? "joined" : "not joined")\(unread)"
      }
      try context.command.output.result(
        ChannelList(workspace: chosen.id, channels: channels),
        human: lines.isEmpty ? "\(chosen.name) has no channels." : lines.joined(separator: "\n"))
    }
  }

  private struct ChannelList: Encodable {
    let workspace: String
    let channels: [Conversation]
  }
}

/// `keel chat dms`: the user's DM rooms in a workspace, with unread counts and the newest message.
struct ChatDirectMessagesCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "dms", abstract: "List your DMs in a workspace: whom with, unread messages, the newest one.")

  @OptionGroup var workspace: WorkspaceOption
  @OptionGroup var global: GlobalOptions

  func run() async throws {
    try await global.runChat { context in
      let chosen = try await context.workspace(workspace.workspace)
      let rooms = try await context.chat.refreshDirectMessages(in: chosen.id)
      let names = Dictionary(rooms.flatMap(\.members).map { ($0.id, $0.nickname) }) { first, _ in first }
      let rows = rooms.map { room in
        DirectMessageRow(
          id: room.conversation.id, name: room.conversation.name, unreadCount: room.conversation.unreadCount,
          unreadMentionCount: room.conversation.unreadMentionCount,
          members: room.members.map { MemberRow(userId: $0.id, nickname: $0.nickname, email: $0.email) },
          lastMessage: room.lastMessage.map { MessageRow($0, names: names, baseURL: context.chat.baseURL) })
      }
      // A nickname is anyone's to take: rows of the same name show whom each is with, by email (or id).
      let repeated = Dictionary(grouping: rows, by: { $0.name.lowercased() }).filter { $0.value.count > 1 }.keys
      let lines = zip(rows, rooms).map { row, room in
        let mentions = row.unreadMentionCount > 0 ? ", \(row.unreadMentionCount) mentioning you" : ""
        let unread = row.unreadCount > 0 ? "  \(row.unreadCount) unread\(mentions)" : ""
        let partner = room.members.first { $0.id != context.me.id }
        let whom =
          repeated.contains(row.name.lowercased()) ? partner.map { " <\($0.email ?? $0.id)>" } ?? "" : ""
        return Output.printable("@" + row.name + whom) + "  \(row.id)\(unread)"
          + (row.lastMessage.map { "  " + $0.brief } ?? "")
      }
      try context.command.output.result(
        ["dms": rows], human: lines.isEmpty ? "You have no DMs in \(chosen.name)." : lines.joined(separator: "\n"))
    }
  }

  private struct DirectMessageRow: Encodable {
    let id: String
    let name: String
    let unreadCount: Int
    let unreadMentionCount: Int
    let members: [MemberRow]
    let lastMessage: MessageRow?
  }

  private struct MemberRow: Encodable {
    let userId: String
    let nickname: String
    let email: String?
  }
}
