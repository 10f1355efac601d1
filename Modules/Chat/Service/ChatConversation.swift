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

  /// A snapshot.
  public init(messages: [Message], status: Status) {
    self.messages = messages
    self.status = status
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
