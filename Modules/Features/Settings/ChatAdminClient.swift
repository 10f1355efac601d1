import Chat

/// What the settings screens need of a `ChatService`, as closures: ``live(_:)`` for a service, fakes in tests.
public struct ChatAdminClient: Sendable {
  /// A channel's members, in the order they joined.
  public var channelMembers: @Sendable (_ channelID: String) async throws -> [Member]
  /// Renames a channel the user owns; returns it renamed.
  public var renameChannel: @Sendable (_ channelID: String, _ name: String) async throws -> Conversation
  /// Deletes a channel the user owns.
  public var deleteChannel: @Sendable (_ channelID: String) async throws -> Void
  /// Leaves a channel (an owner's goes to the member who joined first after them); returns it, not joined.
  public var leaveChannel: @Sendable (_ channelID: String) async throws -> Conversation
  /// Hands a channel the user owns to another of its members; returns it with its new owner.
  public var transferChannel: @Sendable (_ channelID: String, _ userID: String) async throws -> Conversation
  /// Creates a channel the user owns and has joined.
  public var createChannel: @Sendable (_ name: String, _ workspaceID: String) async throws -> Conversation
  /// A workspace's members, in the order they joined.
  public var workspaceMembers: @Sendable (_ workspaceID: String) async throws -> [Member]
  /// Creates a workspace the user owns.
  public var createWorkspace: @Sendable (_ name: String) async throws -> Workspace
  /// Renames a workspace the user owns; returns it renamed.
  public var renameWorkspace: @Sendable (_ workspaceID: String, _ name: String) async throws -> Workspace
  /// Deletes a workspace the user owns, with its channels and DM rooms.
  public var deleteWorkspace: @Sendable (_ workspaceID: String) async throws -> Void
  /// Adds the account with an email to a workspace.
  public var invite: @Sendable (_ email: String, _ workspaceID: String) async throws -> Void
  /// Hands a workspace the user owns to another of its members; returns it with its new owner.
  public var transferWorkspace: @Sendable (_ workspaceID: String, _ userID: String) async throws -> Workspace

  /// A client made of closures.
  public init(
    channelMembers: @escaping @Sendable (String) async throws -> [Member],
    renameChannel: @escaping @Sendable (String, String) async throws -> Conversation,
    deleteChannel: @escaping @Sendable (String) async throws -> Void,
    leaveChannel: @escaping @Sendable (String) async throws -> Conversation,
    transferChannel: @escaping @Sendable (String, String) async throws -> Conversation,
    createChannel: @escaping @Sendable (String, String) async throws -> Conversation,
    workspaceMembers: @escaping @Sendable (String) async throws -> [Member],
    createWorkspace: @escaping @Sendable (String) async throws -> Workspace,
    renameWorkspace: @escaping @Sendable (String, String) async throws -> Workspace,
    deleteWorkspace: @escaping @Sendable (String) async throws -> Void,
    invite: @escaping @Sendable (String, String) async throws -> Void,
    transferWorkspace: @escaping @Sendable (String, String) async throws -> Workspace
  ) {
    self.channelMembers = channelMembers
    self.renameChannel = renameChannel
    self.deleteChannel = deleteChannel
    self.leaveChannel = leaveChannel
    self.transferChannel = transferChannel
    self.createChannel = createChannel
    self.workspaceMembers = workspaceMembers
    self.createWorkspace = createWorkspace
    self.renameWorkspace = renameWorkspace
    self.deleteWorkspace = deleteWorkspace
    self.invite = invite
    self.transferWorkspace = transferWorkspace
  }

  /// The client of `chat`.
  public static func live(_ chat: ChatService) -> ChatAdminClient {
    ChatAdminClient(
      channelMembers: { try await chat.members(ofChannel: $0) },
      renameChannel: { try await chat.renameChannel($0, to: $1) }, deleteChannel: { try await chat.deleteChannel($0) },
      leaveChannel: { try await chat.leave($0) }, transferChannel: { try await chat.transferChannel($0, to: $1) },
      createChannel: { try await chat.createChannel(named: $0, in: $1) },
      workspaceMembers: { try await chat.members(ofWorkspace: $0) },
      createWorkspace: { try await chat.createWorkspace(named: $0) },
      renameWorkspace: { try await chat.renameWorkspace($0, to: $1) },
      deleteWorkspace: { try await chat.deleteWorkspace($0) }, invite: { try await chat.invite(email: $0, to: $1) },
      transferWorkspace: { try await chat.transferWorkspace($0, to: $1) })
  }
}
