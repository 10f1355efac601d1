import Domain
import Foundation
import KeelConcurrency
import Persistence

/// What a conversation's screen shows: its messages and how current they are.
public struct ConversationSnapshot: Sendable, Hashable {
  /// How current a conversation's messages are.
  public enum Status: Sendable, Hashable {
    /// Read from the store; the catch-up has not started.
    case stored
    /// Catching up over REST; pushes wait until it ends.
    case catchingUp
    /// Caught up and following the socket.
    case live
    /// The last catch-up failed (`reason`); the stored messages show, and the next connection or retry catches up.
    case behind(reason: String)
    /// Closed: ``ChatConversation/close()`` or the service shut down.
    case closed
  }

  /// The messages shown, oldest first (time, then id): the newest page and any older pages loaded, pending and
  /// failed ones in their place.
  public var messages: [Message]
  /// How current they are.
  public var status: Status
  /// How far each member has read, by user id, as far as this device knows (a member who never read nor sent here is
  /// not in it).
  public var readPositions: [String: ReadPosition]

  /// A snapshot.
  public init(messages: [Message], status: Status, readPositions: [String: ReadPosition] = [:]) {
    self.messages = messages
    self.status = status
    self.readPositions = readPositions
  }

  /// The user ids of the members who have read `message`, its sender left out, in a stable order: a DM's "seen" when
  /// the other member is in it, a channel's "read by N". Empty for a message the server has not numbered yet.
  public func readBy(_ message: Message) -> [String] {
    guard let seq = message.seq else { return [] }
    return readPositions.filter { $0.key != message.senderID && $0.value.seq >= seq }.keys.sorted()
  }
}

/// How far a member has read a conversation: up to the message `messageID`, numbered `seq` (``Message/seq``), and
/// every message before it.
public struct ReadPosition: Sendable, Hashable {
  /// The server id of the last message read.
  public var messageID: String
  /// Its number in the conversation.
  public var seq: Int

  /// A position.
  public init(messageID: String, seq: Int) {
    self.messageID = messageID
    self.seq = seq
  }
}

/// One open conversation: its messages from the store at once, then caught up, then live (``ChatService/open(_:)``).
///
/// Close it when its screen goes away: its sync stops (the account's socket stays, for the lists).
public final class ChatConversation: Sendable {
  /// The conversation's id.
  public let id: String
  let sync: ConversationSync
  private let service: ChatService
  private let closed = Locked(false)

  init(id: String, sync: ConversationSync, service: ChatService) {
    self.id = id
    self.sync = sync
    self.service = service
  }

  /// A new stream of snapshots: the one now, then each change (a slow reader gets the newest, not every one in
  /// between). It ends when the conversation is closed.
  public func snapshots() -> AsyncStream<ConversationSnapshot> { sync.snapshots.updates() }

  /// The snapshot now.
  public var snapshot: ConversationSnapshot { sync.snapshots.current }

  /// Shows one more page of older messages: from the store, then from the server when the store has no more.
  ///
  /// - Returns: Whether older messages may remain.
  /// - Throws: ``ChatError`` when the server cannot be reached or the store fails.
  @discardableResult
  public func loadOlder() async throws -> Bool { try await sync.loadOlder() }

  /// Waits until the conversation is live (caught up and following the socket) or its catch-up failed, and returns
  /// that status; for tests and tools.
  public func caughtUp() async -> ConversationSnapshot.Status {
    for await snapshot in snapshots() {
      switch snapshot.status {
      case .live, .behind, .closed: return snapshot.status
      case .stored, .catchingUp: continue
      }
    }
    return .closed
  }

  // MARK: - Typing

  /// Call on each change the user makes to the message they are writing: the conversation's other members see them
  /// typing, live (at most one event a second is sent, and only while the socket is connected; nothing is stored).
  /// Their indicator ends by itself a few seconds after the last one (``ChatConfiguration/typingTimeout``), when the
  /// user sends, or with ``userStoppedTyping()``.
  public func userIsTyping() async {
    await service.connection.userIsTyping(in: id)
  }

  /// Call when the user clears what they were writing: the others' indicator ends now, not after the timeout.
  public func userStoppedTyping() async {
    await service.connection.userStoppedTyping(in: id)
  }

  /// The user ids of the other members typing in this conversation now, in the order they began.
  public var typingUserIDs: [String] { service.connection.typists.current[id] ?? [] }

  /// A new stream of who is typing here: the user ids now, then after each change (someone begins, stops, sends, or
  /// their indicator times out). It ends when the conversation is closed.
  public func typingUpdates() -> AsyncStream<[String]> {
    let (id, typists, snapshots) = (id, service.connection.typists.updates(), sync.snapshots.updates())
    return AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
      let following = Task {
        var last: [String]?
        for await all in typists {
          let now = all[id] ?? []
          if now != last {
            last = now
            continuation.yield(now)
          }
        }
        continuation.finish()
      }
      // The snapshots end when the conversation closes: so does this.
      let closing = Task {
        for await _ in snapshots {}
        continuation.finish()
      }
      continuation.onTermination = { _ in
        following.cancel()
        closing.cancel()
      }
    }
  }

  /// Stops following the conversation; the account's socket stays connected for its lists and other conversations.
  /// Closing twice does nothing.
  public func close() async {
    let first = closed.withLock { closed in
      defer { closed = true }
      return !closed
    }
    guard first else { return }
    await service.release(self)
  }
}
