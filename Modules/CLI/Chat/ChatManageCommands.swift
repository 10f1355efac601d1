import ArgumentParser
import Chat
import Domain
import Foundation

/// `keel chat channel …`: make, rename, delete, join and leave a workspace's channels, and list their members.
struct ChatChannelCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "channel",
    abstract: "Create, rename, delete, join or leave a channel, or list its members.",
    discussion: """
      CHANNEL is a channel's name (general or #general) or id in the workspace --workspace names. Renaming and \
      deleting are the owner's: anyone else gets 77 with the server's reason.
      """,
    subcommands: [Create.self, Rename.self, Delete.self, Join.self, Leave.self, Members.self])

  /// `keel chat channel create NAME`: a channel the user owns and is the first member of.
  struct Create: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Create a channel you own (a name of 1 to 100 characters).")
    @Argument(help: "The new channel's name.") var name: String
    @OptionGroup var workspace: WorkspaceOption
    @OptionGroup var global: GlobalOptions

    func run() async throws {
      try await global.runChat { context in
        let chosen = try await context.workspace(workspace.workspace)
        let channel = try await context.chat.createChannel(named: name, in: chosen.id)
        try context.output(channel, "Created #\(channel.name) (\(channel.id)) in \(chosen.name).")
      }
    }
  }

  /// `keel chat channel rename CHANNEL NAME`: the owner's.
  struct Rename: ChannelSubcommand {
    static let configuration = CommandConfiguration(abstract: "Rename a channel you own.")
    @Argument(help: "The channel.") var channel: String
    @Argument(help: "Its new name.") var name: String
    @OptionGroup var workspace: WorkspaceOption
    @OptionGroup var global: GlobalOptions

    func run(on target: Conversation, in context: ChatContext) async throws {
      let renamed = try await context.chat.renameChannel(target.id, to: name)
      try context.output(renamed, "Renamed #\(target.name) to #\(renamed.name).")
    }
  }

  /// `keel chat channel delete CHANNEL`: the owner's; its messages go with it.
  struct Delete: ChannelSubcommand {
    static let configuration = CommandConfiguration(abstract: "Delete a channel you own, with its messages.")
    @Argument(help: "The channel.") var channel: String
    @OptionGroup var workspace: WorkspaceOption
    @OptionGroup var global: GlobalOptions

    func run(on target: Conversation, in context: ChatContext) async throws {
      try await context.chat.deleteChannel(target.id)
      try context.output(target, "Deleted #\(target.name).")
    }
  }

  /// `keel chat channel join CHANNEL`.
  struct Join: ChannelSubcommand {
    static let configuration = CommandConfiguration(abstract: "Join a channel of the workspace.")
    @Argument(help: "The channel.") var channel: String
    @OptionGroup var workspace: WorkspaceOption
    @OptionGroup var global: GlobalOptions

    func run(on target: Conversation, in context: ChatContext) async throws {
      let joined = try await context.chat.join(target.id)
      try context.output(joined, "Joined #\(joined.name).")
    }
  }

  /// `keel chat channel leave CHANNEL`: an owner who leaves hands it on (SandboxAPI §7).
  struct Leave: ChannelSubcommand {
    static let configuration = CommandConfiguration(
      abstract: "Leave a channel; an owner who leaves hands it to the member who joined first after them.")
    @Argument(help: "The channel.") var channel: String
    @OptionGroup var workspace: WorkspaceOption
    @OptionGroup var global: GlobalOptions

    func run(on target: Conversation, in context: ChatContext) async throws {
      let left = try await context.chat.leave(target.id)
      try context.output(left, "Left #\(left.name).")
    }
  }

  /// `keel chat channel members CHANNEL`.
  struct Members: ChannelSubcommand {
    static let configuration = CommandConfiguration(abstract: "List a channel's members.")
    @Argument(help: "The channel.") var channel: String
    @OptionGroup var workspace: WorkspaceOption
    @OptionGroup var global: GlobalOptions

    func run(on target: Conversation, in context: ChatContext) async throws {
      let members = try await context.chat.members(ofChannel: target.id)
      try context.list(members, owner: target.ownerID)
    }
  }
}

/// `keel chat workspace …`: make, rename and delete workspaces, invite to one, and list its members.
struct ChatWorkspaceCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "workspace",
    abstract: "Create, rename or delete a workspace, invite someone to it, or list its members.",
    discussion: """
      WORKSPACE is a workspace's name or id; `invite` and `members` work in the one --workspace names (by default \
      the last one used, else the first). Renaming and deleting are the owner's: anyone else gets 77 with the \
      server's reason.
      """,
    subcommands: [Create.self, Rename.self, Delete.self, Invite.self, Members.self])

  /// `keel chat workspace create NAME`: one the user owns and is the first member of.
  struct Create: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Create a workspace you own (a name of 1 to 100 characters).")
    @Argument(help: "The new workspace's name.") var name: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
      try await global.runChat { context in
        let workspace = try await context.chat.createWorkspace(named: name)
        try context.output(workspace, "Created \(workspace.name) (\(workspace.id)).")
      }
    }
  }

  /// `keel chat workspace rename WORKSPACE NAME`: the owner's.
  struct Rename: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Rename a workspace you own.")
    @Argument(help: "The workspace.") var workspace: String
    @Argument(help: "Its new name.") var name: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
      try await global.runChat { context in
        let target = try await context.workspace(workspace)
        let renamed = try await context.chat.renameWorkspace(target.id, to: name)
        try context.output(renamed, "Renamed \(target.name) to \(renamed.name).")
      }
    }
  }

  /// `keel chat workspace delete WORKSPACE`: the owner's; its channels, DMs and messages go with it.
  struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Delete a workspace you own, with its channels, DMs and messages.")
    @Argument(help: "The workspace.") var workspace: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
      try await global.runChat { context in
        let target = try await context.workspace(workspace)
        try await context.chat.deleteWorkspace(target.id)
        try context.output(target, "Deleted \(target.name).")
      }
    }
  }

  /// `keel chat workspace invite EMAIL`: adds the account of that email to the workspace.
  struct Invite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Add someone to the workspace by their email.")
    @Argument(help: "Their email.") var email: String
    @OptionGroup var workspace: WorkspaceOption
    @OptionGroup var global: GlobalOptions

    func run() async throws {
      try await global.runChat { context in
        let chosen = try await context.workspace(workspace.workspace)
        try await context.chat.invite(email: email, to: chosen.id)
        try context.command.output.result(
          ["workspace": chosen.id, "invited": email], human: "Invited \(Output.printable(email)) to \(chosen.name).")
      }
    }
  }

  /// `keel chat workspace members`.
  struct Members: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the workspace's members.")
    @OptionGroup var workspace: WorkspaceOption
    @OptionGroup var global: GlobalOptions

    func run() async throws {
      try await global.runChat { context in
        let chosen = try await context.workspace(workspace.workspace)
        let members = try await context.chat.members(ofWorkspace: chosen.id)
        try context.list(members, owner: chosen.ownerID)
      }
    }
  }
}

/// A `keel chat channel` subcommand that acts on the channel CHANNEL names, in the workspace --workspace names.
protocol ChannelSubcommand: AsyncParsableCommand {
  /// The channel's name (`general` or `#general`) or id.
  var channel: String { get }
  /// The workspace it is in.
  var workspace: WorkspaceOption { get }
  /// The options every command takes.
  var global: GlobalOptions { get }
  /// What the subcommand does to `target`.
  func run(on target: Conversation, in context: ChatContext) async throws
}

extension ChannelSubcommand {
  /// Finds the channel, then acts on it.
  func run() async throws {
    try await global.runChat { context in
      try await run(on: try await context.channel(channel, in: workspace.workspace), in: context)
    }
  }
}

extension ChatContext {
  /// The channel `name` names in the workspace `workspace` names: a channel's name or id, not a DM.
  ///
  /// - Throws: ``CommandFailure`` of ``ExitStatus/notFound`` when there is none, or it is a DM.
  func channel(_ name: String, in workspace: String?) async throws -> Conversation {
    let chosen = try await self.workspace(workspace)
    let found = try await conversation(name.hasPrefix("@") ? String(name.dropFirst()) : name, in: chosen)
    guard found.kind == .channel else {
      throw CommandFailure(.notFound, "\(name) is a DM, not a channel of \(chosen.name).")
    }
    return found
  }

  /// Prints `value` for `--json`, or `line`, made printable, for people.
  func output<Value: Encodable>(_ value: Value, _ line: String) throws {
    try command.output.result(value, human: Output.printable(line))
  }

  /// Prints members, one a line (the owner marked), or as `{"members":[…]}`.
  func list(_ members: [Member], owner: String?) throws {
    let lines = members.map { member in
      Output.printable("\(member.nickname) <\(member.email ?? member.id)>") + "  \(member.id)"
        + (member.id == owner ? "  (owner)" : "")
    }
    try command.output.result(["members": members], human: lines.joined(separator: "\n"))
  }
}
