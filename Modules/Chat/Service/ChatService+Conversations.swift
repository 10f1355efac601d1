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
  /// - Throws: ``ChatError/Kind/notSignedIn``; ``ChatError/Kind/storage`` when the account's store cannot be opened.
  public func open(_ conversationID: String) async throws -> ChatConversation {
    let store = try store
    let (sync, isNew) = control.withLock { control -> (ConversationSync, Bool) in
      control.holders[conversationID, default: 0] += 1
      if let sync = control.open[conversationID] { return (sync, false) }
      let sync = makeSync(conversationID, store: store)
      control.open[conversationID] = sync
      return (sync, true)
    }
    if isNew {
      await sync.showStored()
      await sync.requestCatchUp()
    }
    await wantSocket()
    return ChatConversation(id: conversationID, sync: sync, service: self)
  }

  /// The conversations following the socket now: open, caught up, and the socket connected.
  public var liveConversations: Set<String> {
    guard socket.state.isConnected else { return [] }
    let open = control.withLock { $0.open }
    return Set(open.filter { $0.value.snapshots.current.status == .live }.keys)
  }

  /// The socket's state, for a screen's connection banner.
  public var connectionState: SocketConnectionState { socket.state }

  /// The app went to the background or became inactive: the socket closes (`SocketIOClient.suspend()`) and pushes
  /// stop; the outbox keeps sending while the process runs.
  public func appDidEnterBackground() async {
    control.withLock { $0.background = true }
    await socket.suspend()
  }

  /// The app is active again: the socket reconnects if it was wanted, each open conversation catches up on what it
  /// missed, and each live list is fetched again.
  public func appWillEnterForeground() async {
    let reconnect = control.withLock { control in
      control.background = false
      return control.wantsSocket && !control.isShutDown
    }
    if reconnect { await socket.connect() }
  }

  func openSync(_ conversationID: String) -> ConversationSync? {
    control.withLock { $0.open[conversationID] }
  }

  func release(_ conversation: ChatConversation) async {
    let stopped = control.withLock { control -> ConversationSync? in
      // A conversation of an account that ended was stopped with it; the one open now under its id is another's.
      guard control.open[conversation.id] === conversation.sync else { return nil }
      let holders = (control.holders[conversation.id] ?? 1) - 1
      guard holders <= 0 else {
        control.holders[conversation.id] = holders
        return nil
      }
      control.holders[conversation.id] = nil
      return control.open.removeValue(forKey: conversation.id)
    }
    await stopped?.stop()
  }

  private func makeSync(_ conversationID: String, store: ChatStore) -> ConversationSync {
    let (client, baseURL, sessions) = (sessions.client, baseURL, sessions)
    return ConversationSync(
      id: conversationID, store: store,
      fetch: { after, before, limit, brief in
        guard sessions.currentUser != nil else {
          throw ChatError(.notSignedIn, "Nobody is signed in: the conversation cannot catch up.")
        }
        do {
          return try await client.send(
            .json(
              ChatRouter(
                .messages(conversationID: conversationID, after: after, before: before, limit: limit, brief: brief),
                baseURL: baseURL)))
        } catch let error as NetworkError {
          throw ChatError.request(RequestFailure(error), doing: "read the messages of \(conversationID)")
        }
      }, configuration: configuration, logger: logger, sleep: sleep,
      silenceCheck: ConversationSync.SilenceCheck(sleep: sleep, following: { [socket] in socket.state.isConnected }))
  }
}

extension ChatWire.Message {
  /// A message from a socket push's argument (SandboxAPI §7), or `nil` when it is not one.
  init?(pushed value: SocketValue) {
    guard let id = value["id"]?.string, let conversationId = value["conversationId"]?.string,
      let senderId = value["senderId"]?.string, let createdAt = value["createdAt"]?.number
    else { return nil }
    var images: [String] = []
    if case .array(let values)? = value["images"] { images = values.compactMap(\.string) }
    self.init(
      id: id, conversationId: conversationId, clientMessageId: value["clientMessageId"]?.string, senderId: senderId,
      text: value["text"]?.string ?? "", images: images, createdAt: createdAt,
      seq: value["seq"]?.number.flatMap { $0 >= 1 && $0 <= 1e15 ? Int($0) : nil })
  }
}
