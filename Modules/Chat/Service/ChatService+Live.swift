import Domain
import Foundation
import GRDB
import KeelBasics
import Logging
import Persistence
import Realtime

// MARK: - The account's socket

extension ChatService {
  /// Connects the account's socket when something live wants it (a list or a conversation) and it is not connected
  /// (the first time, or after it gave up reconnecting), unless the app is in the background
  /// (``appWillEnterForeground()`` connects it then) or the service is shut down.
  func wantSocket() async {
    let connect = control.withLock { control -> Bool in
      control.wantsSocket = true
      return !control.background && !control.isShutDown
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

  /// Reads the socket in order: a connection starts a catch-up of every open conversation (holding pushes from that
  /// moment) and fetches every live list again; a pushed message goes to its open conversation and to the lists;
  /// what else the server pushes changes the lists (SandboxAPI §7); a refusal refreshes the token and connects again.
  func socketLoop() async {
    var refreshes = 0
    // The user whose pushes this connection brings: the one its token was for, as it connected.
    var connectedUser: String?
    for await activity in socket.activity() {
      switch activity {
      case .state(.connected):
        refreshes = 0
        connectedUser = socketToken.withLock { $0?.userID }
        let (syncs, lists) = control.withLock { (Array($0.open.values), Set($0.lists.values.map(\.list))) }
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
            _ = try await sessions.accessToken(replacing: rejected)
          }
          let wanted = control.withLock { $0.wantsSocket && !$0.background && !$0.isShutDown }
          if wanted { await socket.connect() }
        } catch {
          logger.warning("The chat socket's token cannot be refreshed: \(error)")
        }
      case .state:
        connectedUser = nil
      case .event(let event):
        // A push of an account that has ended (still on its way as the session changed hands) is not the next one's.
        guard let account = try? account(), account.userID == connectedUser else { continue }
        // Counted before it is applied: a list answer written after this may be older than the push.
        pushesHeard.withLock { $0 += 1 }
        await apply(event, to: account)
      }
    }
  }

  /// Applies a push to `account`'s store: a message to its conversation (through its sync when it is open) and to
  /// the unread count; the rest to the lists. Every live list reads the store again after each change.
  private func apply(_ event: SocketEvent, to account: ChatAccount) async {
    let store = account.store
    do {
      switch event.name {
      case "message":
        guard let message = event.args.first.flatMap(ChatWire.Message.init(pushed:))?.record, let id = message.id
        else {
          logger.warning("A pushed message could not be read; the next catch-up brings it.")
          return
        }
        guard let sync = openSync(message.conversationID) else {
          try await store.receive(message, by: account.userID)
          return
        }
        // The open conversation's sync stores it, in order with its catch-ups (which may hold it a while); the count
        // follows, once for each message however often it is pushed, and always for the user's own.
        let isNew = try await !store.contains(serverID: id) && counted.withLock { $0.insert(id) }
        await sync.receive(message)
        if isNew || message.senderID == account.userID {
          try await store.countArrival(of: message, by: account.userID)
        }
      case "read":
        guard let read = ChatWire.pushed(ChatWire.Read.self, from: event.args) else { return unreadable(event) }
        try await store.applyRead(read.conversationId, upTo: read.lastReadMessageId, unreadCount: read.unreadCount)
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

  private func unreadable(_ event: SocketEvent) {
    logger.warning("A pushed \(event.name) could not be read; the next connection brings it.")
  }

  /// Fetches `lists` again (after a reconnection, which may have missed their pushes); a failure leaves them as
  /// stored.
  private func refresh(_ lists: Set<ListKind>) async {
    for list in lists {
      do {
        switch list {
        case .workspaces: try await refreshWorkspaces()
        case .channels(let workspaceID): try await refreshChannels(in: workspaceID)
        case .directMessages(let workspaceID): try await refreshDirectMessages(in: workspaceID)
        }
      } catch {
        logger.info("A list cannot be fetched again after a reconnection: \(error)")
      }
    }
  }
}

// MARK: - Live lists

extension ChatService {
  /// A stream of what `read` reads from the account's store: at once, again once `fetch` has stored the server's,
  /// then each time a write changes it (a push, a call, a catch-up). It wants the socket, whose pushes are the
  /// changes made elsewhere, and ends when the consumer stops, when its account ends or the service shuts down, or
  /// with `fetch`'s error.
  func live<Value: Sendable & Equatable>(
    _ list: ListKind, read: @escaping @Sendable (ChatStore) async throws -> Value,
    fetch: @escaping @Sendable () async throws -> Value
  ) -> AsyncThrowingStream<Value, any Error> {
    AsyncThrowingStream { continuation in
      let id = UUID()
      let task = Task { [self] in
        defer { control.withLock { $0.lists[id] = nil } }
        do {
          let account = try account()
          let store = account.store
          // Watched from before the first read: nothing written after it is missed.
          let changes = try await store.changes()
          let followed = control.withLock { control -> Bool in
            guard !control.isShutDown else { return false }
            control.lists[id] = FollowedList(
              userID: account.userID, list: list, finish: { continuation.finish(throwing: $0) })
            return true
          }
          guard followed else { return continuation.finish() }
          // An account that ended while this one started (the pass that ends its lists may have run before it was
          // followed) shows nothing more.
          guard accounts.withLock({ $0.current?.userID }) == account.userID else {
            throw ChatError(.notSignedIn, "The session ended: the chat's lists were its account's.")
          }
          await wantSocket()
          var shown = try await stored("read a list") { try await read(store) }
          continuation.yield(shown)
          _ = try await fetch()
          shown = try await stored("read a list") { try await read(store) }
          continuation.yield(shown)
          for await _ in changes {
            let now = try await stored("read a list") { try await read(store) }
            guard now != shown else { continue }
            shown = now
            continuation.yield(now)
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}

/// The last ids inserted, at most `limit`, the oldest forgotten first.
struct RecentIDs: Sendable {
  let limit: Int
  private var ids: Set<String> = []
  private var order: [String] = []

  init(limit: Int) {
    self.limit = limit
  }

  /// Adds `id`; returns whether it was not there already.
  mutating func insert(_ id: String) -> Bool {
    guard ids.insert(id).inserted else { return false }
    order.append(id)
    if order.count > limit { ids.remove(order.removeFirst()) }
    return true
  }
}
