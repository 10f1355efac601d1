import Domain
import Foundation
import GRDB
import KeelConcurrency
import Logging
import Networking
import Realtime

extension ChatConnection {
  /// Connects the account's socket when something live wants it and it is not connected (the first time, or after it
  /// gave up reconnecting), unless the app is in the background (``enterForeground()`` connects it then) or the
  /// service is shut down.
  func want() async {
    let connect = state.withLock { state -> Bool in
      state.wantsSocket = true
      return state.connects
    }
    guard connect else { return }
    switch socket.state {
    case .connected, .connecting, .reconnecting:
      // Connected, or on its way: a nudge would cut its reconnection's wait short.
      return
    case .disconnected, .refused, .suspended:
      await socket.connect()
    }
  }

  /// The app went to the background or became inactive: the socket closes and pushes stop.
  func enterBackground() async {
    state.withLock { $0.background = true }
    await socket.suspend()
  }

  /// The app is active again: the socket reconnects if it was wanted.
  func enterForeground() async {
    let reconnect = state.withLock { state in
      state.background = false
      return state.connects
    }
    if reconnect { await socket.connect() }
  }

  /// Reads the socket in order: a connection starts a catch-up of every open conversation (holding pushes from that
  /// moment) and fetches every live list again; a pushed message goes to its open conversation and to the lists;
  /// what else the server pushes changes the lists; a refusal refreshes the token and connects again.
  func loop() async {
    var refreshes = 0
    // The user whose pushes this connection brings: the one its token was for, as it connected.
    var connectedUser: String?
    for await activity in socket.activity() {
      switch activity {
      case .state(.connected):
        refreshes = 0
        connectedUser = socketToken.withLock { $0?.userID }
        let (syncs, lists) = state.withLock { state in
          // One fetch for each list however many streams follow it.
          let lists = Dictionary(
            state.lists.values.map { ($0.list, $0.refresh) }, uniquingKeysWith: { first, _ in first })
          return (Array(state.open.values), lists)
        }
        for sync in syncs { await sync.requestCatchUp() }
        // Off the loop: pushes keep coming while the lists are fetched, and each is applied in its turn.
        if !lists.isEmpty { Task { await refresh(lists) } }
      case .state(.refused(let message)):
        connectedUser = nil
        // An expired token, or one the server no longer knows (it restarted, or the session was ended elsewhere):
        // either way the refresh settles it, bringing a token the server takes, or ending the session when the
        // server refuses the refresh too, which `SessionManager/states()` tells the app. Three in a row at most.
        guard refreshes < 3 else {
          logger.warning("The chat socket was refused: \(message)")
          continue
        }
        refreshes += 1
        do {
          if let rejected = socketToken.withLock({ $0?.token }) {
            _ = try await accounts.sessions.accessToken(replacing: rejected)
          }
          if state.withLock({ $0.connects }) { await socket.connect() }
        } catch {
          logger.warning("The chat socket's token cannot be refreshed: \(error)")
        }
      case .state:
        connectedUser = nil
        // No push ends an indicator while the socket is down.
        forgetTyping()
      case .event(let event):
        // A push of an account that has ended (still on its way as the session changed hands) is not the next one's.
        guard let account = try? accounts.current(), account.userID == connectedUser else { continue }
        // Counted before it is applied: a list answer written after this may be older than the push.
        pushesHeard.withLock { $0 += 1 }
        await apply(event, to: account)
      }
    }
  }

  /// Applies a push to `account`'s store: a message to its conversation (through its sync when it is open) and to
  /// the unread count; the rest to the lists. Every live list reads the store again after each change.
  func apply(_ event: SocketEvent, to account: ChatAccount) async {
    let store = account.store
    do {
      switch event.name {
      case "message":
        guard let message = event.args.first.flatMap(ChatWire.Message.init(pushed:))?.record, let id = message.id
        else {
          logger.warning("A pushed message could not be read; the next catch-up brings it.")
          return
        }
        // Whoever sent it stopped typing it.
        heardTyping(false, by: message.senderID, in: message.conversationID)
        guard let sync = sync(for: message.conversationID) else {
          try await store.receive(message, by: account.userID)
          return
        }
        // The open conversation's sync stores it, in order with its catch-ups (which may hold it a while), and moves
        // its sender's read position in the same write (the server moved their pointer): the open conversation shows
        // it. The count follows, once for each message however often it is pushed, and always for the user's own.
        guard let known = await sync.receive(message) else {
          try await store.receive(message, by: account.userID)
          return
        }
        let isNew = !known && counted.withLock { $0.insert(id) }
        if isNew || message.senderID == account.userID {
          try await store.countArrival(of: message, by: account.userID)
        }
      case "messageChanged":
        guard let pushed = event.args.first?["message"].flatMap(ChatWire.Message.init(pushed:)) else {
          return unreadable(event)
        }
        let message = pushed.record
        if let sync = sync(for: message.conversationID) {
          await sync.receiveChange(message)
        } else {
          try await store.applyChanges([message])
        }
      case "memberRead":
        guard let read = ChatWire.pushed(ChatWire.MemberRead.self, from: event.args),
          let conversationID = read.conversationId
        else { return unreadable(event) }
        try await store.moveReadPosition(of: read.userId, in: conversationID, to: read.messageId, seq: read.seq)
        await sync(for: conversationID)?.changed()
      case "typing":
        guard let value = event.args.first, let conversationID = value["conversationId"]?.string,
          let userID = value["userId"]?.string, case .bool(let typing)? = value["typing"]
        else { return unreadable(event) }
        if userID != account.userID { heardTyping(typing, by: userID, in: conversationID) }
      case "read":
        guard let read = ChatWire.pushed(ChatWire.Read.self, from: event.args) else { return unreadable(event) }
        try await store.applyRead(
          read.conversationId, upTo: read.lastReadMessageId, unreadCount: read.unreadCount,
          unreadMentionCount: read.unreadMentionCount)
      case "channel":
        guard let channel = ChatWire.pushed(ChatWire.Channel.self, from: event.args) else { return unreadable(event) }
        try await store.upsert([channel.record])
      case "channelDeleted":
        guard let deleted = ChatWire.pushed(ChatWire.Deleted.self, from: event.args) else { return unreadable(event) }
        try await store.removeConversation(deleted.id)
      case "dm":
        guard let room = ChatWire.pushed(ChatWire.DirectMessageRoom.self, from: event.args) else {
          return unreadable(event)
        }
        // In one transaction: a list never shows the room without its members.
        try await store.writeLists("store a pushed DM room") { db in
          try ChatStore.upsert(room.record(for: account.userID), db)
          try ChatStore.replaceMembers(room.members.map(\.member), of: .conversation(room.id), db)
          if let last = room.lastMessage { _ = try ChatStore.upsert(last.record, db) }
        }
      case "workspace":
        guard let workspace = ChatWire.pushed(ChatWire.Workspace.self, from: event.args) else {
          return unreadable(event)
        }
        try await store.upsert([workspace.record])
      case "workspaceDeleted":
        guard let deleted = ChatWire.pushed(ChatWire.Deleted.self, from: event.args) else { return unreadable(event) }
        try await store.removeWorkspace(deleted.id)
      default:
        return
      }
    } catch {
      // Not lost: the next connection fetches every live list and catches up every open conversation.
      logger.warning("A pushed \(event.name) cannot be stored; the next connection brings it: \(error)")
    }
  }

  func unreadable(_ event: SocketEvent) {
    logger.warning("A pushed \(event.name) could not be read; the next connection brings it.")
  }

  /// Fetches `lists` again (after a reconnection, which may have missed their pushes); a failure leaves them as
  /// stored.
  func refresh(_ lists: [ListKind: @Sendable () async throws -> Void]) async {
    for refresh in lists.values {
      do {
        try await refresh()
      } catch {
        logger.info("A list cannot be fetched again after a reconnection: \(error)")
      }
    }
  }
}
