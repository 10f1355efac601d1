import Domain
import Foundation
import GRDB
import KeelConcurrency
import Logging
import Networking
import Realtime

/// The session's realtime connection: one socket for the signed-in account while something live wants it and the
/// app is active, and what follows it — the open conversations, each with its sync, and the live lists. It applies
/// what the server pushes to the account's store (SandboxAPI §7), and on each connection catches up every open
/// conversation and fetches every live list again.
final class ChatConnection: Sendable {
  let socket: SocketIOClient
  let accounts: ChatAccounts
  private let baseURL: URL
  let configuration: ChatConfiguration
  let logger: Logger
  let sleep: @Sendable (Duration) async throws -> Void
  let now: @Sendable () -> Date
  /// Who is typing in each conversation, by conversation id: the user ids, in the order they began.
  let typists = Broadcast<[String: [String]]>([:])
  /// What the typing indicators need to remember (``ChatConnection+Typing``).
  let typingBook = Locked(TypingBook())
  let state = Locked(State())
  /// The socket's last access token, which a refusal of the socket names to the session manager, and the user it
  /// was the token of: the user whose pushes the connection brings.
  let socketToken: Locked<(token: String, userID: String?)?>
  /// How many pushes the socket has brought: a list fetched while one came may be older than what it wrote.
  let pushesHeard = Locked(0)
  /// The server ids of the pushed messages counted unread lately, so that a push that comes twice while its open
  /// conversation holds it (a catch-up running) counts once.
  let counted = Locked(RecentIDs(limit: 1_000))

  struct State {
    /// The open conversations, by id.
    var open: [String: ConversationSync] = [:]
    /// How many ``ChatConversation``s hold each open conversation.
    var holders: [String: Int] = [:]
    var background = false
    var isShutDown = false
    /// Whether the account's socket is wanted: a list was followed or a conversation opened since it began. It stays
    /// connected while the app is active, until the account ends or the service shuts down.
    var wantsSocket = false
    /// The live list streams, by id.
    var lists: [UUID: FollowedList] = [:]

    /// Whether the socket should be connected now.
    var connects: Bool { wantsSocket && !background && !isShutDown }
  }

  /// A live list stream (``ChatService/workspaces()``, ``ChatService/channels(in:)``,
  /// ``ChatService/directMessages(in:)``): whose and what it shows, how to fetch it again after a reconnection, and
  /// how it ends.
  struct FollowedList: Sendable {
    /// The user whose account's store it reads.
    let userID: String
    let list: ListKind
    /// Fetches the list from the server into the store.
    let refresh: @Sendable () async throws -> Void
    /// Ends the stream: with an error, or (`nil`) as a shutdown does.
    let finish: @Sendable ((any Error)?) -> Void
  }

  /// Which list a stream follows.
  enum ListKind: Hashable {
    case workspaces
    case channels(workspaceID: String)
    case directMessages(workspaceID: String)
  }

  /// - Throws: `ChatError.Kind.invalidInput` for a `baseURL` the socket cannot use.
  init(
    baseURL: URL, accounts: ChatAccounts, transport: any WebSocketTransport, networkMonitor: (any NetworkMonitor)?,
    configuration: ChatConfiguration, clock: any Clock<Duration>,
    sleep: @escaping @Sendable (Duration) async throws -> Void, now: @escaping @Sendable () -> Date = { Date() },
    logger: Logger
  ) throws {
    self.now = now
    self.baseURL = baseURL
    self.accounts = accounts
    self.configuration = configuration
    self.logger = logger
    self.sleep = sleep
    let token = Locked<(token: String, userID: String?)?>(nil)
    socketToken = token
    let socketConfiguration = SocketIOConfiguration(
      url: baseURL,
      auth: { [sessions = accounts.sessions] in
        let user = sessions.currentUser?.id
        let access = try await sessions.accessToken()
        token.withLock { $0 = (access, user) }
        return ["token": .string(access)]
      }, reconnection: configuration.reconnection)
    do {
      socket = try SocketIOClient(
        configuration: socketConfiguration, transport: transport, clock: clock, networkMonitor: networkMonitor,
        logger: logger)
    } catch {
      throw ChatError(.invalidInput, "The chat backend \(baseURL) cannot serve a socket: \(error)", underlying: error)
    }
  }

  /// How many pushes the socket has brought so far.
  var pushCount: Int { pushesHeard.withLock { $0 } }

  // MARK: - What follows it

  /// Follows `list` as `id` until ``unfollow(_:)``, the account's end or the shutdown; `false` when shut down.
  func follow(_ list: FollowedList, as id: UUID) -> Bool {
    state.withLock { state in
      guard !state.isShutDown else { return false }
      state.lists[id] = list
      return true
    }
  }

  /// Stops following the list stream `id`.
  func unfollow(_ id: UUID) {
    state.withLock { $0.lists[id] = nil }
  }

  /// What ``open(_:of:)`` found.
  enum Opened {
    /// The conversation's sync, shared with whoever opened it already, or new (its stored messages to show and a
    /// catch-up to start).
    case following(ConversationSync, isNew: Bool)
    /// The service is shut down: a sync nobody follows, to be stopped, so that the conversation shows closed.
    case closed(ConversationSync)
  }

  /// Opens `conversationID` in `account`'s store, registered in the same turn of the lock that checks `account` is
  /// still current: a conversation of an account that ended as it opened never follows the next account's pushes.
  ///
  /// - Throws: `ChatError.Kind.notSignedIn` when `account` is no longer the current one.
  func open(_ conversationID: String, of account: ChatAccount) throws -> Opened {
    try state.withLock { state in
      guard accounts.isCurrent(account) else {
        throw ChatError(.notSignedIn, "The session ended: the conversation was its account's.")
      }
      guard !state.isShutDown else { return .closed(makeSync(conversationID, store: account.store)) }
      state.holders[conversationID, default: 0] += 1
      if let sync = state.open[conversationID] { return .following(sync, isNew: false) }
      let sync = makeSync(conversationID, store: account.store)
      state.open[conversationID] = sync
      return .following(sync, isNew: true)
    }
  }

  /// The sync of `conversationID` when it is open.
  func sync(for conversationID: String) -> ConversationSync? {
    state.withLock { $0.open[conversationID] }
  }

  /// Lets go of a conversation its holder closed: the last holder's close stops its sync.
  func release(_ conversation: ChatConversation) async {
    let stopped = state.withLock { state -> ConversationSync? in
      // A conversation of an account that ended was stopped with it; the one open now under its id is another's.
      guard state.open[conversation.id] === conversation.sync else { return nil }
      let holders = (state.holders[conversation.id] ?? 1) - 1
      guard holders <= 0 else {
        state.holders[conversation.id] = holders
        return nil
      }
      state.holders[conversation.id] = nil
      return state.open.removeValue(forKey: conversation.id)
    }
    await stopped?.stop()
  }

  /// The conversations following the socket now: open, caught up, and the socket connected.
  var liveConversations: Set<String> {
    guard socket.state.isConnected else { return [] }
    let open = state.withLock { $0.open }
    return Set(open.filter { $0.value.snapshots.current.status == .live }.keys)
  }

  /// An account ended: its open conversations stop, its lists end with `ChatError.Kind.notSignedIn` (a list of
  /// `userID`, the user signed in now, that started as the session changed hands goes on), and the socket, which
  /// was its, closes; it connects again at once for `userID`'s lists, if any.
  func endAccount(keeping userID: String?) async {
    let (syncs, lists) = state.withLock { state in
      let ended = state.lists.filter { $0.value.userID != userID }
      defer {
        state.open = [:]
        state.holders = [:]
        for id in ended.keys { state.lists[id] = nil }
        state.wantsSocket = !state.lists.isEmpty
      }
      return (Array(state.open.values), Array(ended.values))
    }
    for sync in syncs { await sync.stop() }
    // What they showed is being forgotten.
    let why = ChatError(.notSignedIn, "The session ended: the chat's lists were its account's.")
    for list in lists { list.finish(why) }
    await socket.disconnect()
    if state.withLock({ $0.connects }) { await socket.connect() }
  }

  /// Ends every list stream, closes the socket and stops every open conversation; nothing connects again.
  func shutDown() async {
    let (syncs, lists) = state.withLock { state in
      state.isShutDown = true
      defer {
        state.open = [:]
        state.holders = [:]
        state.lists = [:]
      }
      return (Array(state.open.values), Array(state.lists.values))
    }
    for list in lists { list.finish(nil) }
    await socket.disconnect()
    for sync in syncs { await sync.stop() }
  }

  private func makeSync(_ conversationID: String, store: ChatStore) -> ConversationSync {
    let (baseURL, sessions) = (baseURL, accounts.sessions)
    /// One request of the conversation's catch-up, as the signed-in user; its failure as the chat's, doing `what`.
    @Sendable func call<T: Decodable & Sendable>(_ route: ChatRouter.Route, doing what: String) async throws -> T {
      guard sessions.currentUser != nil else {
        throw ChatError(.notSignedIn, "Nobody is signed in: the conversation cannot catch up.")
      }
      do {
        return try await sessions.client.send(.json(ChatRouter(route, baseURL: baseURL)))
      } catch let error as NetworkError {
        throw ChatError.request(RequestFailure(error), doing: what)
      }
    }
    return ConversationSync(
      id: conversationID, store: store,
      fetch: { after, before, limit, brief in
        try await call(
          .messages(conversationID: conversationID, after: after, before: before, limit: limit, brief: brief),
          doing: "read the messages of \(conversationID)")
      },
      fetchReads: {
        try await call(.reads(conversationID: conversationID), doing: "read how far \(conversationID) was read")
      },
      fetchChanges: { since, limit, brief in
        try await call(
          .changes(conversationID: conversationID, since: since, limit: limit, brief: brief),
          doing: "read the changes of \(conversationID)")
      }, configuration: configuration, logger: logger, sleep: sleep,
      silenceCheck: ConversationSync.SilenceCheck(sleep: sleep, following: { [socket] in socket.state.isConnected }))
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

extension ChatWire.Message {
  /// A message from a socket push's argument (SandboxAPI §7), or `nil` when it is not one.
  init?(pushed value: SocketValue) {
    guard let id = value["id"]?.string, let conversationId = value["conversationId"]?.string,
      let senderId = value["senderId"]?.string, let createdAt = value["createdAt"]?.number
    else { return nil }
    var images: [String] = []
    if case .array(let values)? = value["images"] { images = values.compactMap(\.string) }
    func count(_ key: String) -> Int? { value[key]?.number.flatMap { $0 >= 0 && $0 <= 1e15 ? Int($0) : nil } }
    var reactions: [Reaction] = []
    if case .array(let values)? = value["reactions"] {
      reactions = values.compactMap { reaction in
        guard let emoji = reaction["emoji"]?.string, case .array(let users)? = reaction["userIds"] else { return nil }
        return Reaction(emoji: emoji, userIds: users.compactMap(\.string))
      }
    }
    var deleted: Bool?
    if case .bool(let flag)? = value["deleted"] { deleted = flag }
    var mentions: [String] = []
    if case .array(let values)? = value["mentions"] { mentions = values.compactMap(\.string) }
    var files: [File] = []
    if case .array(let values)? = value["files"] {
      files = values.compactMap { file in
        guard let name = file["name"]?.string, let size = file["size"]?.number, size >= 0, size <= 1e15,
          let url = file["url"]?.string
        else { return nil }
        return File(
          name: name, size: Int64(size), contentType: file["contentType"]?.string ?? "application/octet-stream",
          url: url)
      }
    }
    self.init(
      id: id, conversationId: conversationId, clientMessageId: value["clientMessageId"]?.string, senderId: senderId,
      text: value["text"]?.string ?? "", images: images, createdAt: createdAt,
      seq: count("seq").flatMap { $0 >= 1 ? $0 : nil }, editedAt: value["editedAt"]?.number, deleted: deleted,
      replyTo: value["replyTo"]?.string, replyCount: count("replyCount"), lastReplyId: value["lastReplyId"]?.string,
      reactions: reactions, version: count("version"), mentions: mentions, files: files)
  }
}
