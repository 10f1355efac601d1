import Domain
import Foundation
import KeelConcurrency
import KeelFiles
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
/// - **Sending** (``send(_:images:files:to:)``) writes the message to a durable outbox and shows it pending at once; the
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
/// It is a façade over the pieces that do the work, each of which a reader can hold in mind alone: the accounts on the
/// device (whose chat is current), the connection (the socket, open conversations and live lists, pushes applied), the
/// directory (lists and calls on workspaces, channels, DM rooms and members) and the outbox (sending).
///
/// Call ``shutDown()`` before releasing it: its outbox and socket keep it alive until then.
public final class ChatService: Sendable {
  /// The chat backend.
  public let baseURL: URL
  /// What pages, catch-up and retries use.
  public let configuration: ChatConfiguration

  let sessions: SessionManager
  /// Whose chat is current, and the accounts signed out of.
  let accounts: ChatAccounts
  /// The socket, and the open conversations and live lists that follow it.
  let connection: ChatConnection
  /// The lists and the calls on workspaces, channels, DM rooms and members.
  let directory: ChatDirectory
  /// Each account's messages to send, and the sender.
  let outbox: ChatOutbox
  /// The signed-in account's image loader, by user id: at most one, made on first use, dropped when its account ends.
  let loaders = Locked<[String: ImageLoader]>([:])
  /// The last pass of ``sessionChanged()``: each waits for the one before, so that no two retire at once.
  let passes = Locked<Task<Void, Never>?>(nil)
  let settings: (any KeyValueStore)?
  let networkMonitor: (any NetworkMonitor)?
  let logger: Logger
  let now: @Sendable () -> Date
  /// The last copy of a downloaded file into its account's files: each waits for the one before
  /// (``fileCacheWrites()``).
  let fileCacheWrite = Locked<Task<Void, Never>?>(nil)
  /// The service's loops: the sender, the socket's reader, the session's watcher, the network's.
  private let tasks = Locked<[Task<Void, Never>]>([])

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
  /// - Throws: `ChatError.Kind.storage` when `directory` cannot be made; `ChatError.Kind.invalidInput` for a
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
    let sleep = Self.sleeper(clock)
    do {
      try OwnerOnlyFiles.makeDirectory(directory, ownedByKeel: false)
    } catch {
      throw ChatError.storage(error, doing: "make the chat's directory \(directory.path)")
    }
    accounts = ChatAccounts(
      sessions: sessions, root: directory, configuration: configuration, now: now, logger: logger)
    connection = try ChatConnection(
      baseURL: baseURL, accounts: accounts, transport: socketTransport, networkMonitor: networkMonitor,
      configuration: configuration, clock: clock, sleep: sleep, now: now, logger: logger)
    self.directory = ChatDirectory(accounts: accounts, connection: connection, baseURL: baseURL)
    outbox = ChatOutbox(
      accounts: accounts, connection: connection, baseURL: baseURL, configuration: configuration, now: now,
      sleep: sleep, logger: logger)
    start()
  }

  private static func sleeper<C: Clock<Duration>>(_ clock: C) -> @Sendable (Duration) async throws -> Void {
    { try await clock.sleep(for: $0) }
  }

  private func start() {
    // The loops keep the service alive until `shutDown()`: an app keeps one chat service while signed in.
    let sender = Task { [self] in await outbox.loop() }
    let pump = Task { [self] in await connection.loop() }
    let accounts = Task { [weak self, sessions] in
      for await _ in sessions.states() {
        guard let self else { return }
        await self.sessionChanged()
      }
    }
    var started = [sender, pump, accounts]
    if let networkMonitor {
      started.append(
        Task { [outbox] in
          for await status in networkMonitor.statusUpdates() where status == .online { outbox.wakeup.signal() }
        })
    }
    tasks.withLock { $0 = started }
  }

  /// Stops the outbox and the socket and waits for them, and for a downloaded file still being kept. A send in flight
  /// is abandoned and stays in the outbox, to go out with the same client message id from the next service on the
  /// same directory.
  public func shutDown() async {
    let stopping = tasks.withLock { tasks in
      defer { tasks = [] }
      return tasks
    }
    for task in stopping { task.cancel() }
    outbox.stop()
    await connection.shutDown()
    for task in stopping { await task.value }
    await fileCacheWrites()
    outbox.finish()
  }

  // MARK: - Settings

  /// The workspace the signed-in user had open last, kept in the key-value store (not a secret, so not in the secure
  /// store) under a key of their account's: where the app opens next time. `nil` when none was kept, nobody is signed
  /// in, or the service has no settings store. Signing out forgets it.
  public var lastWorkspaceID: String? {
    guard let account = try? accounts.current() else { return nil }
    return try? settings?.value(String.self, forKey: account.lastWorkspaceKey)
  }

  /// Keeps `workspaceID` as the signed-in user's ``lastWorkspaceID``, or forgets it for `nil`.
  ///
  /// - Throws: `ChatError.Kind.notSignedIn`; `ChatError.Kind.storage` when the settings cannot be written.
  public func setLastWorkspaceID(_ workspaceID: String?) throws {
    let key = try accounts.current().lastWorkspaceKey
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
  /// - Throws: `ChatError.Kind.notSignedIn`; `ChatError.Kind.storage` when it cannot be opened (a damaged file is
  ///   set aside and a new store started, see `ChatStore`).
  public var store: ChatStore {
    get throws { try accounts.current().store }
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
    outbox.wakeup.signal()
  }

  /// One pass of ``sessionChanged()``.
  private func changePass() async {
    let userID = sessions.currentUser?.id
    let ended = accounts.takeEnded(keeping: userID)
    if !ended.isEmpty {
      // Its images in memory go with it; those on disk go with its directory.
      let dropped = loaders.withLock { loaders in
        defer { loaders = [:] }
        return Array(loaders.values)
      }
      for loader in dropped { loader.clearMemory() }
      await connection.endAccount(keeping: userID)
    }
    // A downloaded file being kept for an account that is going is kept before its files are forgotten.
    if !ended.isEmpty { await fileCacheWrites() }
    for account in ended where account.userID != sessions.currentUser?.id {
      do {
        try await account.retire(settings: settings)
      } catch {
        logger.error("The chat of an account signed out of cannot be forgotten: \(error)")
      }
    }
    let (root, configuration, now) = (accounts.root, configuration, now)
    do {
      try await ChatAccount.adoptUnsorted(in: root, configuration: configuration, now: now) { [accounts] in
        try accounts.account(of: $0)
      }
      // Whoever is signed in as each directory is looked at keeps theirs, however the session moved meanwhile.
      try await ChatAccount.retireOthers(
        than: { [sessions, accounts] in [sessions.currentUser?.id, accounts.currentUserID].compactMap { $0 } },
        in: root, settings: settings, configuration: configuration, now: now)
    } catch {
      logger.error("The chat of accounts signed out of cannot be forgotten: \(error)")
    }
  }

  /// Forgets the chat of every account but the signed-in user's, as the service does when the session changes hands:
  /// for a tool that signs out in a process of its own and wants nothing left behind at once.
  public func forgetSignedOutAccounts() async {
    await sessionChanged()
  }
}
