import Domain
import Foundation
import Logging
import Networking
import Persistence
import Realtime

extension ChatService {
  /// Opens a conversation (a channel the user joined, or a DM room): its stored messages show at once, a catch-up
  /// brings what is newer, then the socket's pushes keep it current. The account's socket connects with the first
  /// live list or open conversation (unless the app is in the background), and stays connected.
  ///
  /// Opening a conversation that is open already shares its sync; each ``ChatConversation`` is closed on its own.
  /// Signing out stops every open conversation: it was the account's.
  ///
  /// - Throws: `ChatError.Kind.notSignedIn`; `ChatError.Kind.storage` when the account's store cannot be opened.
  public func open(_ conversationID: String) async throws -> ChatConversation {
    switch try connection.open(conversationID, of: accounts.current()) {
    case .following(let sync, let isNew):
      if isNew {
        await sync.showStored()
        await sync.requestCatchUp()
      }
      await connection.want()
      return ChatConversation(id: conversationID, sync: sync, service: self)
    case .closed(let sync):
      await sync.stop()
      return ChatConversation(id: conversationID, sync: sync, service: self)
    }
  }

  /// The conversations following the socket now: open, caught up, and the socket connected.
  public var liveConversations: Set<String> { connection.liveConversations }

  /// The socket's state, for a screen's connection banner.
  public var connectionState: SocketConnectionState { connection.socket.state }

  /// The app went to the background or became inactive: the socket closes (`SocketIOClient.suspend()`) and pushes
  /// stop; the outbox keeps sending while the process runs.
  public func appDidEnterBackground() async {
    await connection.enterBackground()
  }

  /// The app is active again: the socket reconnects if it was wanted, each open conversation catches up on what it
  /// missed, and each live list is fetched again.
  public func appWillEnterForeground() async {
    await connection.enterForeground()
  }

  /// Lets go of `conversation`: its sync stops when no other ``ChatConversation`` holds it.
  func release(_ conversation: ChatConversation) async {
    await connection.release(conversation)
  }
}
