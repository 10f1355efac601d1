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
///   for try await workspaces in chat.workspaces() { print(workspaces.map(\.name)) }  // stored, then the server's
///   let general = await chat.open("c2")
///   Task { for await snapshot in general.snapshots() { print(snapshot.messages.count, snapshot.status) } }
///   _ = try await chat.send("Hello", images: [], to: "c2")  // pending at once; sent when the server has it
///   await general.close()
///   await chat.shutDown()
/// }
/// ```
///
/// - **Lists** (``workspaces()``, ``channels(in:)``, ``directMessages(in:)``) answer from the store at once, then
///   from the server, which the store then keeps.
/// - **A conversation** (``open(_:)``) shows its stored messages at once, then catches up over REST from where its
///   last catch-up ended, then follows the socket. Pushes that arrive during a catch-up are held and applied after it;
///   every reconnection catches up again; a gap past ``ChatConfiguration/maxCatchUpMessages`` starts again from the
///   newest page. A message that arrives twice is stored once.
/// - **Sending** (``send(_:images:to:)``) writes the message to a durable outbox and shows it pending at once; the
///   outbox sends one message at a time, in order, and when the network fails it waits and sends again with the same
///   client message id, so the server keeps each message once even across a crash. A refusal marks it failed with the
///   server's reason; ``resend(_:)`` tries again.
/// - **Lifecycle:** the socket is connected while a conversation is open and the app is active
///   (``appDidEnterBackground()``, ``appWillEnterForeground()``); ``liveConversations`` says which are following it.
///   Its CONNECT carries the session's access token, refreshed as REST's is.
///
/// Call ``shutDown()`` before releasing it: its outbox and socket keep it alive until then.
public final class ChatService: Sendable {
  /// The chat backend.
  public let baseURL: URL
  /// The local store screens read first.
  public let store: ChatStore
  /// What pages, catch-up and retries use.
  public let configuration: ChatConfiguration

  let sessions: SessionManager
  let outbox: DurableQueue<OutgoingMessage>
  /// Where the outbox keeps its copies of the images of unsent messages.
  let outboxImages: URL
  /// Held while a message is sent from the outbox: every `ChatService` on the directory, in any process, sends one at
  /// a time.
  let outboxLock: FileLock
  let socket: SocketIOClient
  let settings: (any KeyValueStore)?
  let networkMonitor: (any NetworkMonitor)?
  let logger: Logger
  let now: @Sendable () -> Date
  let sleep: @Sendable (Duration) async throws -> Void
  let control = Locked(Control())
  let wakeup = WakeSignal()
  /// The socket's last access token, which a refusal of the socket names to the session manager.
  let socketToken = Locked<String?>(nil)
  /// The last message the outbox sent or failed, for ``outcome(of:)``.
  let settled = Broadcast<ChatStore.Message?>(nil)
  /// Why the outbox's last attempt failed for now; `nil` once one succeeds.
  let retryReason = Locked<String?>(nil)

  /// What changes while the service runs.
  struct Control {
    /// The open conversations, by id.
    var open: [String: ConversationSync] = [:]
    /// How many ``ChatConversation``s hold each open conversation.
    var holders: [String: Int] = [:]
    var background = false
    var tasks: [Task<Void, Never>] = []
    var isShutDown = false
  }

  /// A chat service on the backend at `baseURL`, keeping its store and outbox in `directory`.
  ///
  /// - Parameters:
  ///   - baseURL: The chat backend (SandboxAPI §7), the same as `sessions`'.
  ///   - sessions: The session: REST calls go through its client, and the socket authenticates with its token.
  ///   - socketTransport: The socket's WebSocket: `NIOWebSocketTransport` on Linux, `URLSessionWebSocketTransport`
  ///     on Apple platforms.
  ///   - directory: Where `chat.sqlite` (the store), `outbox.sqlite` and `outbox-images/` live, all owner-only.
  ///   - settings: Where ``lastWorkspaceID`` and the profile are kept; not kept when `nil`.
  ///   - networkMonitor: When given, the outbox sends as soon as it reports the network back.
  ///   - configuration: Pages, the gap bound, the store's size, retries.
  ///   - clock: The clock of retry waits and the socket's timers; a `TestClock` in tests.
  ///   - now: The time a pending message shows until the server gives it one.
  ///   - logger: Sync, sends and the socket at `info`; never a message's text or a token.
  /// - Throws: ``ChatError/Kind/storage`` when the store or the outbox cannot be opened (a damaged store file is set
  ///   aside and a new one started, see `ChatStore`); ``ChatError/Kind/invalidInput`` for a `baseURL` the socket
  ///   cannot use.
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
    outboxImages = directory.appendingPathComponent("outbox-images", isDirectory: true)
    do {
      try OwnerOnlyFiles.makeDirectory(directory, ownedByKeel: false)
      try OwnerOnlyFiles.makeDirectory(outboxImages)
      store = try ChatStore(url: directory.appendingPathComponent("chat.sqlite"), maxSize: configuration.storeMaxSize)
      outbox = try DurableQueue(
        url: directory.appendingPathComponent("outbox.sqlite"), capacity: configuration.outboxCapacity,
        overflow: .rejectNew, now: now)
      outboxLock = try FileLock(at: directory.appendingPathComponent("outbox.lock"))
    } catch {
      throw ChatError.storage(error, doing: "open the chat's store and outbox in \(directory.path)")
    }
    if let setAside = store.setAside {
      logger.warning("The chat store was set aside (\(setAside.reason)); a new one starts empty.")
    }
    let token = socketToken
    let socketConfiguration = SocketIOConfiguration(
      url: baseURL,
      auth: { [sessions] in
        let access = try await sessions.accessToken()
        token.withLock { $0 = access }
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
    var tasks = [sender, pump]
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
    let (tasks, syncs) = control.withLock { control in
      control.isShutDown = true
      defer {
        control.tasks = []
        control.open = [:]
        control.holders = [:]
      }
      return (control.tasks, Array(control.open.values))
    }
    for task in tasks { task.cancel() }
    wakeup.signal()
    await socket.disconnect()
    for sync in syncs { await sync.stop() }
    for task in tasks { await task.value }
    settled.finish()
  }

  // MARK: - Settings

  /// The settings key of ``lastWorkspaceID``.
  public static let lastWorkspaceKey = "keel.chat.lastWorkspaceID"

  /// The workspace the user had open last, kept in the key-value store (not a secret, so not in the secure store):
  /// where the app opens next time. `nil` when none was kept or the service has no settings store.
  public var lastWorkspaceID: String? {
    try? settings?.value(String.self, forKey: Self.lastWorkspaceKey)
  }

  /// Keeps `workspaceID` as ``lastWorkspaceID``, or forgets it for `nil`.
  ///
  /// - Throws: ``ChatError/Kind/storage`` when the settings cannot be written.
  public func setLastWorkspaceID(_ workspaceID: String?) throws {
    do {
      if let workspaceID {
        try settings?.set(workspaceID, forKey: Self.lastWorkspaceKey)
      } else {
        try settings?.removeValue(forKey: Self.lastWorkspaceKey)
      }
    } catch {
      throw ChatError.storage(error, doing: "keep the last workspace")
    }
  }

  /// The settings key of ``profile``.
  public static let profileKey = "keel.chat.profile"

  /// The user's profile as last changed by ``updateNickname(_:)``, kept in the key-value store; `nil` before.
  public var profile: SessionUser? {
    try? settings?.value(SessionUser.self, forKey: Self.profileKey)
  }

  /// Changes the signed-in user's nickname (`PATCH /v1/me`) and keeps the profile in the settings.
  ///
  /// - Throws: ``ChatError/Kind/invalidInput`` for a nickname that is empty or longer than 64 characters once trimmed,
  ///   before anything is sent; otherwise ``ChatError``.
  @discardableResult
  public func updateNickname(_ nickname: String) async throws -> SessionUser {
    let nickname = nickname.trimmingCharacters(in: .whitespacesAndNewlines)
    guard (1...64).contains(nickname.count) else {
      throw ChatError(.invalidInput, "A nickname has 1 to 64 characters once trimmed; nothing was sent.")
    }
    _ = try me()
    let user: SessionUser
    do {
      user = try await sessions.client.send(.json(AuthRouter(.updateProfile(nickname: nickname), baseURL: baseURL)))
    } catch let error as NetworkError {
      throw ChatError.request(RequestFailure(error), doing: "change the nickname")
    }
    return keepProfile(user)
  }

  /// Keeps `user` as ``profile`` in the settings (a failure is logged: the server has the change) and returns it.
  private func keepProfile(_ user: SessionUser) -> SessionUser {
    do {
      try settings?.set(user, forKey: Self.profileKey)
    } catch {
      logger.warning("The new profile cannot be kept in the settings: \(error)")
    }
    return user
  }

  /// Uploads the signed-in user's profile image (PNG, JPEG, GIF or WebP, 8 MiB at most), streamed from `file`, and
  /// keeps the profile in the settings.
  ///
  /// - Returns: The user, with the image's path in `SessionUser.profileImage`.
  /// - Throws: ``ChatError/Kind/invalidInput`` for a file that is missing, not such an image or too large, before
  ///   anything is sent; otherwise ``ChatError``.
  @discardableResult
  public func updateProfileImage(_ file: URL) async throws -> SessionUser {
    _ = try me()
    var form = MultipartFormData()
    let body = outboxImages.appendingPathComponent("profile-\(UUID().uuidString).body")
    defer { try? FileManager.default.removeItem(at: body) }
    do throws(MultipartError) {
      try form.append(fileAt: file, name: "image")
      var limits = Self.messageLimits
      limits.maxFiles = 1
      _ = try form.write(to: body, limits: limits)
    } catch {
      throw ChatError(.invalidInput, "Cannot use this profile image: \(error.description.clause); nothing was sent.")
    }
    let user: SessionUser
    do {
      user = try await sessions.client.send(
        .json(ChatRouter(.profileImage(body: body, contentType: form.contentType), baseURL: baseURL)))
    } catch let error as NetworkError {
      throw ChatError.request(RequestFailure(error), doing: "upload the profile image")
    }
    return keepProfile(user)
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
    } catch {
      throw ChatError.storage(error, doing: what)
    }
  }

  /// A stream that yields what `local` reads from the store, then what `remote` fetched (and stored); it ends with
  /// `remote`'s error when the server cannot be reached, after the stored answer.
  func storeThenServer<Value: Sendable>(
    _ local: @escaping @Sendable () async throws -> Value, _ remote: @escaping @Sendable () async throws -> Value
  ) -> AsyncThrowingStream<Value, any Error> {
    AsyncThrowingStream { continuation in
      let task = Task {
        do {
          continuation.yield(try await local())
          continuation.yield(try await remote())
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}
