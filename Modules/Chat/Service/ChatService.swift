import Domain
import Foundation
import KeelBasics
import Logging
import Networking
import Persistence
import Realtime

/// The chat: workspaces, channels and DM rooms, conversations that sync, and an outbox that never loses a message
/// (REQUIREMENTS C1–C6). Screens read the local `ChatStore` first and the server second; messages go out over REST
/// from a durable outbox and come in over the socket.
///
/// ```swift
/// import Domain
/// import Foundation
/// import Networking
///
/// func chat(sessions: SessionManager, socket: any WebSocketTransport, directory: URL) async throws {
///   let chat = try ChatService(
///     baseURL: URL(string: "https://chat.example.com")!, sessions: sessions, socketTransport: socket,
///     directory: directory, clock: ContinuousClock())
///   for try await workspaces in chat.workspaces() {  // stored, then the server's, then every change
///     print(workspaces.map(\.name))
///     break
///   }
///   let general = try await chat.open("c2")
///   Task { for await snapshot in general.snapshots() { print(snapshot.messages.count, snapshot.status) } }
///   _ = try await chat.send("Hello", images: [], to: "c2")  // pending at once; sent when the server has it
///   await general.close()
///   await chat.shutDown()
/// }
/// ```
///
/// - **Lists** (``workspaces()``, ``channels(in:)``, ``directMessages(in:)``) answer from the store at once, then
///   from the server, which the store then keeps, then again each time they change: the socket's pushes (a message,
///   a read on another device, a room opened, a channel or workspace changed) are applied to the store as they come.
/// - **A conversation** (``open(_:)``) shows its stored messages at once, then catches up over REST from where its
///   last catch-up ended, then follows the socket. Pushes that arrive during a catch-up are held and applied after it;
///   every reconnection catches up again; a gap past ``ChatConfiguration/maxCatchUpMessages`` starts again from the
///   newest page. A message that arrives twice is stored once.
/// - **Sending** (``send(_:images:to:)``) writes the message to a durable outbox and shows it pending at once; the
///   outbox sends one message at a time, in order, and when the network fails it waits and sends again with the same
///   client message id, so the server keeps each message once even across a crash. A refusal marks it failed with the
///   server's reason; ``resend(_:)`` tries again.
/// - **Lifecycle:** the account has one socket, connected from the first live list or open conversation for as long
///   as the app is active (``appDidEnterBackground()``, ``appWillEnterForeground()``) and the account lasts; each
///   connection catches up the open conversations and fetches the live lists again. ``liveConversations`` says which
///   conversations are following it. Its CONNECT carries the session's access token, refreshed as REST's is.
///
/// - **Accounts:** the store and the outbox are the signed-in account's (``store``), each in a directory of its own;
///   when the session ends, the account's open conversations stop and what the server gave is forgotten, while what its
///   user has not sent waits for them alone (``forgetSignedOutAccounts()``).
///
/// Call ``shutDown()`` before releasing it: its outbox and socket keep it alive until then.
public final class ChatService: Sendable {
  /// The chat backend.
  public let baseURL: URL
  /// What pages, catch-up and retries use.
  public let configuration: ChatConfiguration

  let sessions: SessionManager
  /// The chat's directory: each account's in `accounts/` below it.
  let root: URL
  /// The signed-in account's chat, opened on first use, and the accounts signed out of that are still to be retired.
  let accounts = Locked(Accounts())
  /// The signed-in account's image loader, by user id: at most one, made on first use, dropped when its account ends.
  let loaders = Locked<[String: ImageLoader]>([:])
  /// The last pass of ``sessionChanged()``: each waits for the one before, so that no two retire at once.
  let passes = Locked<Task<Void, Never>?>(nil)
  let socket: SocketIOClient
  let settings: (any KeyValueStore)?
  let networkMonitor: (any NetworkMonitor)?
  let logger: Logger
  let now: @Sendable () -> Date
  let sleep: @Sendable (Duration) async throws -> Void
  let control = Locked(Control())
  let wakeup = WakeSignal()
  /// The socket's last access token, which a refusal of the socket names to the session manager, and the user it
  /// was the token of: the user whose pushes the connection brings.
  let socketToken = Locked<(token: String, userID: String?)?>(nil)
  /// The last message the outbox sent or failed, for ``outcome(of:)``.
  let settled = Broadcast<Message?>(nil)
  /// Why the outbox's last attempt failed for now; `nil` once one succeeds.
  let retryReason = Locked<String?>(nil)
  /// How many pushes the socket has brought: a list fetched while one came may be older than what it wrote.
  let pushesHeard = Locked(0)
  /// The server ids of the pushed messages counted unread lately, so that a push that comes twice while its open
  /// conversation holds it (a catch-up running) counts once.
  let counted = Locked(RecentIDs(limit: 1_000))

  /// The accounts the service has opened.
  struct Accounts {
    /// The signed-in user's; `nil` until first used, and while nobody is signed in.
    var current: ChatAccount?
    /// Accounts signed out of, which ``sessionChanged()`` retires.
    var ended: [ChatAccount] = []
  }

  /// What changes while the service runs.
  struct Control {
    /// The open conversations, by id.
    var open: [String: ConversationSync] = [:]
    /// How many ``ChatConversation``s hold each open conversation.
    var holders: [String: Int] = [:]
    var background = false
    var tasks: [Task<Void, Never>] = []
    var isShutDown = false
    /// Whether the account's socket is wanted: a list was followed or a conversation opened since it began. It stays
    /// connected while the app is active, until the account ends or the service shuts down.
    var wantsSocket = false
    /// The live list streams, by id: what each follows, and how to end it when its account ends.
    var lists: [UUID: FollowedList] = [:]
  }

  /// A live list stream (``workspaces()``, ``channels(in:)``, ``directMessages(in:)``): whose and what it shows,
  /// refreshed on each connection of the socket, and how it ends.
  struct FollowedList {
    /// The user whose account's store it reads.
    let userID: String
    let list: ListKind
    /// Ends the stream: with an error, or (`nil`) as a shutdown does.
    let finish: @Sendable ((any Error)?) -> Void
  }

  /// Which list a stream follows.
  enum ListKind: Hashable {
    case workspaces
    case channels(workspaceID: String)
    case directMessages(workspaceID: String)
  }

  /// A chat service on the backend at `baseURL`, keeping its store and outbox in `directory`.
  ///
  /// - Parameters:
  ///   - baseURL: The chat backend (SandboxAPI §7), the same as `sessions`'.
  ///   - sessions: The session: REST calls go through its client, and the socket authenticates with its token.
  ///   - socketTransport: The socket's WebSocket: `NIOWebSocketTransport` on Linux, `URLSessionWebSocketTransport`
  ///     on Apple platforms.
  ///   - directory: The chat's directory, owner-only: each account's store (`chat.sqlite`), outbox (`outbox.sqlite`)
  ///     and images (`outbox-images/`) in a directory of its own below it.
  ///   - settings: Where ``lastWorkspaceID`` is kept; not kept when `nil`.
  ///   - networkMonitor: When given, the outbox sends as soon as it reports the network back.
  ///   - configuration: Pages, the gap bound, the store's size, retries.
  ///   - clock: The clock of retry waits and the socket's timers; a `TestClock` in tests.
  ///   - now: The time a pending message shows until the server gives it one.
  ///   - logger: Sync, sends and the socket at `info`; never a message's text or a token.
  /// - Throws: ``ChatError/Kind/storage`` when `directory` cannot be made; ``ChatError/Kind/invalidInput`` for a
  ///   `baseURL` the socket cannot use.
  public init(
    baseURL: URL, sessions: SessionManager, socketTransport: any WebSocketTransport, directory: URL,
    settings: (any KeyValueStore)? = nil, networkMonitor: (any NetworkMonitor)? = nil,
    configuration: ChatConfiguration = ChatConfiguration(), clock: any Clock<Duration>,
    now: @escaping @Sendable () -> Date = { Date() },
    logger: Logger = Logger(label: "keel.chat", factory: { _ in SwiftLogNoOpLogHandler() })
  ) throws {
    let configuration = configuration.clamped
    self.baseURL = baseURL
    self.configuration = configuration
    self.sessions = sessions
    self.settings = settings
    self.networkMonitor = networkMonitor
    self.logger = logger
    self.now = now
    sleep = Self.sleeper(clock)
    root = directory
    do {
      try OwnerOnlyFiles.makeDirectory(directory, ownedByKeel: false)
    } catch {
      throw ChatError.storage(error, doing: "make the chat's directory \(directory.path)")
    }
    let token = socketToken
    let socketConfiguration = SocketIOConfiguration(
      url: baseURL,
      auth: { [sessions] in
        let user = sessions.currentUser?.id
        let access = try await sessions.accessToken()
        token.withLock { $0 = (access, user) }
        return ["token": .string(access)]
      }, reconnection: configuration.reconnection)
    do {
      socket = try SocketIOClient(
        configuration: socketConfiguration, transport: socketTransport, clock: clock, networkMonitor: networkMonitor,
        logger: logger)
    } catch {
      throw ChatError(.invalidInput, "The chat backend \(baseURL) cannot serve a socket: \(error)", underlying: error)
    }
    start()
  }

  deinit {
    for task in control.withLock({ $0.tasks }) { task.cancel() }
  }

  private static func sleeper<C: Clock<Duration>>(_ clock: C) -> @Sendable (Duration) async throws -> Void {
    { try await clock.sleep(for: $0) }
  }

  private func start() {
    // Both loops keep the service alive until `shutDown()`: an app keeps one chat service while signed in.
    let sender = Task { [weak self] in _ = await self?.sendLoop() }
    let pump = Task { [weak self] in _ = await self?.socketLoop() }
    let accounts = Task { [weak self, sessions] in
      for await _ in sessions.states() {
        guard let self else { return }
        await self.sessionChanged()
      }
    }
    var tasks = [sender, pump, accounts]
    if let networkMonitor {
      tasks.append(
        Task { [weak self] in
          for await status in networkMonitor.statusUpdates() where status == .online { self?.wakeup.signal() }
        })
    }
    control.withLock { $0.tasks = tasks }
  }

  /// Stops the outbox and the socket and waits for them. A send in flight is abandoned and stays in the outbox, to go
  /// out with the same client message id from the next service on the same directory.
  public func shutDown() async {
    let (tasks, syncs, lists) = control.withLock { control in
      control.isShutDown = true
      defer {
        control.tasks = []
        control.open = [:]
        control.holders = [:]
        control.lists = [:]
      }
      return (control.tasks, Array(control.open.values), Array(control.lists.values))
    }
    for list in lists { list.finish(nil) }
    for task in tasks { task.cancel() }
    wakeup.signal()
    await socket.disconnect()
    for sync in syncs { await sync.stop() }
    for task in tasks { await task.value }
    settled.finish()
  }

  // MARK: - Settings

  /// The workspace the signed-in user had open last, kept in the key-value store (not a secret, so not in the secure
  /// store) under a key of their account's: where the app opens next time. `nil` when none was kept, nobody is signed
  /// in, or the service has no settings store. Signing out forgets it.
  public var lastWorkspaceID: String? {
    guard let account = try? account() else { return nil }
    return try? settings?.value(String.self, forKey: account.lastWorkspaceKey)
  }

  /// Keeps `workspaceID` as the signed-in user's ``lastWorkspaceID``, or forgets it for `nil`.
  ///
  /// - Throws: ``ChatError/Kind/notSignedIn``; ``ChatError/Kind/storage`` when the settings cannot be written.
  public func setLastWorkspaceID(_ workspaceID: String?) throws {
    let key = try account().lastWorkspaceKey
    do {
      if let workspaceID {
        try settings?.set(workspaceID, forKey: key)
      } else {
        try settings?.removeValue(forKey: key)
      }
    } catch {
      throw ChatError.storage(error, doing: "keep the last workspace")
    }
  }

  // MARK: - Accounts

  /// The signed-in account's local store, which screens read first: each account has its own, and nobody else's is
  /// ever read.
  ///
  /// - Throws: ``ChatError/Kind/notSignedIn``; ``ChatError/Kind/storage`` when it cannot be opened (a damaged file is
  ///   set aside and a new store started, see `ChatStore`).
  public var store: ChatStore {
    get throws { try account().store }
  }

  /// The signed-in user's chat on this device, opened on first use.
  ///
  /// - Throws: ``ChatError/Kind/notSignedIn``; ``ChatError/Kind/storage`` when it cannot be opened.
  func account() throws -> ChatAccount {
    try account(of: me())
  }

  /// `userID`'s chat: the current account when it is theirs; otherwise one opened now, which becomes the current one
  /// when `userID` is signed in (the one it replaces is retired by ``sessionChanged()``).
  private func account(of userID: String) throws -> ChatAccount {
    try accounts.withLock { accounts in
      if let current = accounts.current, current.userID == userID { return current }
      let account: ChatAccount
      do {
        account = try ChatAccount(userID: userID, root: root, configuration: configuration, now: now)
      } catch {
        throw ChatError.storage(error, doing: "open the chat's store and outbox in \(root.path)")
      }
      if let setAside = account.store.setAside {
        logger.warning("The chat store was set aside (\(setAside.reason)); a new one starts empty.")
      }
      if sessions.currentUser?.id == userID {
        if let replaced = accounts.current { accounts.ended.append(replaced) }
        accounts.current = account
      }
      return account
    }
  }

  /// The session may have changed hands: an account that is not the signed-in user's (now, not as a state that may
  /// be stale says) stops its conversations and the socket, and is retired (what the server gave is forgotten, what
  /// its user has not sent stays theirs); so is any other account's left in the directory; an older layout's outbox
  /// goes to its senders'.
  func sessionChanged() async {
    let pass = passes.withLock { last -> Task<Void, Never> in
      let previous = last
      let next = Task { [self] in
        await previous?.value
        await changePass()
      }
      last = next
      return next
    }
    // Not cut short by a shutdown: what is forgotten is forgotten whole, and a shutdown waits for it.
    await pass.value
    wakeup.signal()
  }

  /// One pass of ``sessionChanged()``.
  private func changePass() async {
    let userID = sessions.currentUser?.id
    let ended = accounts.withLock { accounts -> [ChatAccount] in
      if let current = accounts.current, current.userID != userID {
        accounts.ended.append(current)
        accounts.current = nil
      }
      defer { accounts.ended = [] }
      // One signed out and in again keeps their account.
      return accounts.ended.filter { $0.userID != userID }
    }
    if !ended.isEmpty {
      // Its images in memory go with it; those on disk go with its directory.
      let dropped = loaders.withLock { loaders in
        defer { loaders = [:] }
        return Array(loaders.values)
      }
      for loader in dropped { loader.clearMemory() }
      let (syncs, lists) = control.withLock { control in
        // A list of the user signed in now (one that started as the session changed hands) goes on.
        let ended = control.lists.filter { $0.value.userID != userID }
        defer {
          control.open = [:]
          control.holders = [:]
          for id in ended.keys { control.lists[id] = nil }
          control.wantsSocket = !control.lists.isEmpty
        }
        return (Array(control.open.values), Array(ended.values))
      }
      for sync in syncs { await sync.stop() }
      // The lists of the account that ended end too: what they showed is being forgotten.
      let why = ChatError(.notSignedIn, "The session ended: the chat's lists were its account's.")
      for list in lists { list.finish(why) }
      await socket.disconnect()
      // The next account's lists, if any started meanwhile, want a socket of their own.
      if control.withLock({ $0.wantsSocket && !$0.background && !$0.isShutDown }) { await socket.connect() }
    }
    for account in ended where account.userID != sessions.currentUser?.id {
      do {
        try await account.retire(settings: settings)
      } catch {
        logger.error("The chat of an account signed out of cannot be forgotten: \(error)")
      }
    }
    do {
      try await ChatAccount.adoptUnsorted(in: root, configuration: configuration, now: now) { [self] in
        try account(of: $0)
      }
      // Whoever is signed in as each directory is looked at keeps theirs, however the session moved meanwhile.
      try await ChatAccount.retireOthers(
        than: { [self] in
          [sessions.currentUser?.id, accounts.withLock { $0.current?.userID }].compactMap { $0 }
        }, in: root, settings: settings, configuration: configuration, now: now)
    } catch {
      logger.error("The chat of accounts signed out of cannot be forgotten: \(error)")
    }
  }

  /// Forgets the chat of every account but the signed-in user's, as the service does when the session changes hands:
  /// for a tool that signs out in a process of its own and wants nothing left behind at once.
  public func forgetSignedOutAccounts() async {
    await sessionChanged()
  }

  // MARK: - Calls

  /// The signed-in user's id, or ``ChatError/Kind/notSignedIn``.
  func me() throws -> String {
    guard let user = sessions.currentUser else {
      throw ChatError(.notSignedIn, "Nobody is signed in: sign in before using the chat; nothing was sent.")
    }
    return user.id
  }

  /// Sends `route` through the session's client and decodes its answer, as a ``ChatError`` when it fails.
  func call<Response: Decodable & Sendable>(
    _ route: ChatRouter.Route, as type: Response.Type = Response.self, doing what: String
  ) async throws -> Response {
    _ = try me()
    do {
      return try await sessions.client.send(.json(ChatRouter(route, baseURL: baseURL)))
    } catch let error as NetworkError {
      throw ChatError.request(RequestFailure(error), doing: what)
    }
  }

  /// Runs `body` on the store, its failure as ``ChatError/Kind/storage``.
  func stored<Value>(_ what: String, _ body: () async throws -> Value) async throws -> Value {
    do {
      return try await body()
    } catch let error as ChatError {
      throw error
    } catch {
      throw ChatError.storage(error, doing: what)
    }
  }
}
