import Chat
import Domain
import Foundation

/// What the chat features need of a `ChatService`, as closures: ``live(_:)`` for a service, fakes in tests.
public struct ChatClient: Sendable {
  /// The user's workspaces, live: stored first, then the server's, then again on every change.
  public var workspaces: @Sendable () -> AsyncThrowingStream<[Workspace], any Error>
  /// A workspace's channels, joined and not, live: stored first, then the server's, then again on every change.
  public var channels: @Sendable (_ workspaceID: String) -> AsyncThrowingStream<[Conversation], any Error>
  /// The user's DM rooms in a workspace, live: stored first, then the server's, then again on every change.
  public var directMessages: @Sendable (_ workspaceID: String) -> AsyncThrowingStream<[DirectMessageRoom], any Error>
  /// A workspace's members.
  public var members: @Sendable (_ workspaceID: String) async throws -> [Member]
  /// Joins a channel; returns it joined.
  public var join: @Sendable (_ channelID: String) async throws -> Conversation
  /// Creates a channel the user owns and has joined.
  public var createChannel: @Sendable (_ name: String, _ workspaceID: String) async throws -> Conversation
  /// Opens (or finds) the DM room with a user in a workspace.
  public var openDirectMessage: @Sendable (_ userID: String, _ workspaceID: String) async throws -> DirectMessageRoom
  /// The workspace the user had open last, if kept.
  public var lastWorkspaceID: @Sendable () -> String?
  /// Keeps the workspace the user has open, for next time.
  public var setLastWorkspaceID: @Sendable (String) throws -> Void
  /// A conversation's snapshots while the stream is read: it is opened (stored messages, catch-up, live), and closed
  /// when the reader stops or is cancelled.
  public var conversation: @Sendable (_ conversationID: String) -> AsyncStream<ConversationSnapshot>
  /// Shows one more page of older messages in an open conversation; returns whether more may remain.
  public var loadOlder: @Sendable (_ conversationID: String) async throws -> Bool
  /// Sends a message through the outbox; returns it pending.
  public var send: @Sendable (_ text: String, _ images: [URL], _ conversationID: String) async throws -> Message
  /// Sends a failed message again.
  public var resend: @Sendable (Message) async throws -> Void
  /// Marks a conversation read up to a message.
  public var markRead: @Sendable (_ conversationID: String, _ messageID: String) async throws -> Void
  /// The app went to the background: the socket closes.
  public var appDidEnterBackground: @Sendable () async -> Void
  /// The app is active again: the socket reconnects if a conversation is open, and each catches up.
  public var appWillEnterForeground: @Sendable () async -> Void

  /// A client made of closures.
  public init(
    workspaces: @escaping @Sendable () -> AsyncThrowingStream<[Workspace], any Error>,
    channels: @escaping @Sendable (String) -> AsyncThrowingStream<[Conversation], any Error>,
    directMessages: @escaping @Sendable (String) -> AsyncThrowingStream<[DirectMessageRoom], any Error>,
    members: @escaping @Sendable (String) async throws -> [Member],
    join: @escaping @Sendable (String) async throws -> Conversation,
    openDirectMessage: @escaping @Sendable (String, String) async throws -> DirectMessageRoom,
    lastWorkspaceID: @escaping @Sendable () -> String?,
    setLastWorkspaceID: @escaping @Sendable (String) throws -> Void,
    conversation: @escaping @Sendable (String) -> AsyncStream<ConversationSnapshot>,
    loadOlder: @escaping @Sendable (String) async throws -> Bool,
    send: @escaping @Sendable (String, [URL], String) async throws -> Message,
    resend: @escaping @Sendable (Message) async throws -> Void,
    markRead: @escaping @Sendable (String, String) async throws -> Void,
    appDidEnterBackground: @escaping @Sendable () async -> Void,
    appWillEnterForeground: @escaping @Sendable () async -> Void,
    createChannel: @escaping @Sendable (String, String) async throws -> Conversation
  ) {
    self.workspaces = workspaces
    self.channels = channels
    self.directMessages = directMessages
    self.members = members
    self.join = join
    self.openDirectMessage = openDirectMessage
    self.lastWorkspaceID = lastWorkspaceID
    self.setLastWorkspaceID = setLastWorkspaceID
    self.conversation = conversation
    self.loadOlder = loadOlder
    self.send = send
    self.resend = resend
    self.markRead = markRead
    self.appDidEnterBackground = appDidEnterBackground
    self.appWillEnterForeground = appWillEnterForeground
    self.createChannel = createChannel
  }

  /// The client of `chat`.
  public static func live(_ chat: ChatService) -> ChatClient {
    ChatClient(
      workspaces: { chat.workspaces() }, channels: { chat.channels(in: $0) },
      directMessages: { chat.directMessages(in: $0) }, members: { try await chat.members(ofWorkspace: $0) },
      join: { try await chat.join($0) }, openDirectMessage: { try await chat.openDirectMessage(with: $0, in: $1) },
      lastWorkspaceID: { chat.lastWorkspaceID }, setLastWorkspaceID: { try chat.setLastWorkspaceID($0) },
      conversation: { id in
        AsyncStream { continuation in
          let following = Task {
            // Nobody signed in, or no store: the stream ends, as it does when the session ends.
            guard let conversation = try? await chat.open(id) else { return continuation.finish() }
            for await snapshot in conversation.snapshots() { continuation.yield(snapshot) }
            await conversation.close()
            continuation.finish()
          }
          continuation.onTermination = { _ in following.cancel() }
        }
      },
      loadOlder: { id in
        // Shares the open conversation's sync; this hold is released at once.
        let conversation = try await chat.open(id)
        do {
          let more = try await conversation.loadOlder()
          await conversation.close()
          return more
        } catch {
          await conversation.close()
          throw error
        }
      },
      send: { try await chat.send($0, images: $1, to: $2) }, resend: { try await chat.resend($0) },
      markRead: { _ = try await chat.markRead($0, upTo: $1) },
      appDidEnterBackground: { await chat.appDidEnterBackground() },
      appWillEnterForeground: { await chat.appWillEnterForeground() },
      createChannel: { try await chat.createChannel(named: $0, in: $1) })
  }
}
