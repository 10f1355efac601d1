import Foundation
import KeelBasics
import Logging
import Networking

/// A Socket.IO client (Engine.IO v4, Socket.IO v5, over WebSocket only) for one namespace, on any
/// `WebSocketTransport`: `NIOWebSocketTransport` on Linux and servers, `URLSessionWebSocketTransport` on Apple
/// platforms (REQUIREMENTS R1–R7).
///
/// ```swift
/// import Foundation
/// import Networking
///
/// func listen(over transport: any WebSocketTransport) async throws {
///   let configuration = SocketIOConfiguration(
///     url: URL(string: "https://chat.example.com")!, auth: { ["token": "current-access-token"] })
///   let client = try SocketIOClient(configuration: configuration, transport: transport)
///   await client.connect()
///   for await event in client.events(named: "message") {
///     print(event.args.first?["text"]?.string ?? "")
///   }
/// }
/// ```
///
/// - **Connection:** ``connect()`` connects and keeps the connection: after a lost connection (the server gone, a
///   reset, no ping within `pingInterval + pingTimeout`), it tries again after a jittered, growing wait
///   (``ReconnectionPolicy``), at once when the network monitor says the network is back; each attempt has
///   ``SocketIOConfiguration/connectTimeout``. It stops after a deliberate disconnection, the server's or the app's,
///   and after a refusal (CONNECT_ERROR), as socket.io-client does.
/// - **Lifecycle:** ``suspend()`` when the app goes to the background or inactive or the screen goes away (closes,
///   no reconnection), ``resume()`` when it comes back (connects now).
/// - **Emitting:** only while connected: ``emit(_:_:)`` and ``emitWithAck(_:_:timeout:)`` fail at once with
///   ``SocketIOError/Kind/notConnected`` otherwise. Nothing is buffered for later, so nothing is dropped silently:
///   the chat sends over REST from a durable outbox, and the socket only receives (Documentation/Decisions/0012).
/// - **Events:** ``events()``, ``events(named:)``, ``states()`` and ``activity()`` are streams, one per call, each
///   buffering what its reader has not read yet. Events of a connection never surface once the next one started.
///
/// Call ``disconnect()`` before releasing a connected client: a connection in use keeps its client alive.
public actor SocketIOClient {
  /// Where the client connects and how it behaves.
  public nonisolated let configuration: SocketIOConfiguration
  /// The Engine.IO WebSocket URL the configuration's URL becomes.
  nonisolated let engineURL: URL

  private let transport: any WebSocketTransport
  private let networkMonitor: (any NetworkMonitor)?
  private let logger: Logger
  private let now: @Sendable () -> Duration
  private let sleep: @Sendable (Duration) async throws -> Void
  private let timers: DeadlineTimers
  private let fanOut = ActivityFanOut()

  /// The run loop in charge, and whether the app still wants the connection it keeps.
  private var run: RunLoop?
  private var monitor: Task<Void, Never>?
  private var suspended = false
  private var live: LiveConnection?
  private var generation = 0
  private var wake: OneShot<Void>?
  private var pendingAcks: [Int: PendingAck] = [:]
  private var nextAckID = 0

  /// The largest binary packet, its attachments together, the client accepts: input size is bounded.
  static let maxBinaryPacketBytes = 64 << 20

  /// A client for `configuration` over `transport`, timing its heartbeat watchdog, connect and ack timeouts and
  /// backoff on `clock`, reconnecting at once when `networkMonitor` reports the network back.
  ///
  /// - Parameters:
  ///   - configuration: The server, the namespace, auth, timeouts and the reconnection policy.
  ///   - transport: The WebSocket: `NIOWebSocketTransport` on Linux, `URLSessionWebSocketTransport` on Apple
  ///     platforms.
  ///   - clock: The clock timeouts and waits run on; a `TestClock` in tests.
  ///   - networkMonitor: When given, a reconnection waiting out its backoff starts as soon as it reports online.
  ///   - logger: Connections, disconnections and reconnections at `info`, never a payload, header or auth.
  /// - Throws: ``SocketIOError/Kind/invalidConfiguration`` for a URL or namespace that cannot work.
  public init(
    configuration: SocketIOConfiguration,
    transport: any WebSocketTransport,
    clock: any Clock<Duration> = ContinuousClock(),
    networkMonitor: (any NetworkMonitor)? = nil,
    logger: Logger = Logger(label: "keel.realtime", factory: { _ in SwiftLogNoOpLogHandler() })
  ) throws(SocketIOError) {
    self.configuration = configuration
    self.engineURL = try configuration.engineURL()
    self.transport = transport
    self.networkMonitor = networkMonitor
    self.logger = logger
    (now, sleep) = Self.timekeeping(clock)
    timers = DeadlineTimers(clock: clock, sleep: sleep)
  }

  deinit {
    monitor?.cancel()
    fanOut.finish()
  }

  private static func timekeeping<C: Clock<Duration>>(
    _ clock: C
  ) -> (@Sendable () -> Duration, @Sendable (Duration) async throws -> Void) {
    let origin = clock.now
    return ({ origin.duration(to: clock.now) }, { try await clock.sleep(for: $0) })
  }

  // MARK: - Streams

  /// The state now.
  public nonisolated var state: SocketConnectionState { fanOut.current }

  /// A new stream of the state: the state now, then every change.
  public nonisolated func states() -> AsyncStream<SocketConnectionState> {
    fanOut.stream(
      initial: { $0 },
      { activity in
        if case .state(let state) = activity { state } else { nil }
      })
  }

  /// A new stream of every event the server emits from now on.
  public nonisolated func events() -> AsyncStream<SocketEvent> {
    fanOut.stream { activity in
      if case .event(let event) = activity { event } else { nil }
    }
  }

  /// A new stream of the events named `name` from now on.
  public nonisolated func events(named name: String) -> AsyncStream<SocketEvent> {
    fanOut.stream { activity in
      if case .event(let event) = activity, event.name == name { event } else { nil }
    }
  }

  /// A new stream of states and events in the order they happened, starting with the state now.
  public nonisolated func activity() -> AsyncStream<SocketActivity> {
    fanOut.stream(initial: { .state($0) }, { $0 })
  }

  // MARK: - Connecting

  /// Connects, and keeps the connection until ``disconnect()`` or ``suspend()``, the server's disconnection or its
  /// refusal. Returns at once; ``states()`` tells when the client is connected. While a reconnection waits out its
  /// backoff, tries at once.
  public func connect() {
    suspended = false
    startMonitor()
    if let run, run.wanted {
      wake?.fulfill(())
      return
    }
    let run = RunLoop()
    self.run = run
    run.task = Task { await self.keepConnected(run) }
  }

  /// Leaves the namespace and closes the connection: the state becomes
  /// ``SocketConnectionState/disconnected(_:)`` with ``SocketDisconnectReason/ioClientDisconnect``, awaited
  /// acknowledgements fail with ``SocketIOError/Kind/disconnected``, and nothing reconnects until ``connect()``.
  public func disconnect() async {
    suspended = false
    await stop()
  }

  /// Closes the connection for the app's lifecycle (background, inactive, the screen gone): as ``disconnect()``, then
  /// the state ``SocketConnectionState/suspended`` until ``resume()``. Does nothing unless connected or connecting.
  public func suspend() async {
    guard let run, run.wanted else { return }
    suspended = true
    await stop()
    if suspended { fanOut.publish(.state(.suspended)) }
  }

  /// Connects now if ``suspend()`` closed the connection; otherwise does nothing.
  public func resume() {
    guard suspended else { return }
    connect()
  }

  private func stop() async {
    guard let run else { return }
    run.wanted = false
    wake?.fulfill(())
    if let live, live.endReason == nil {
      live.endReason = .ioClientDisconnect
      if live.sid != nil {
        // Best effort: the server learns the client left on purpose; the close follows either way.
        try? await send(SocketPacket(.disconnect, namespace: configuration.namespace), on: live)
      }
      live.task?.cancel()
    }
    await run.task?.value
  }

  private func startMonitor() {
    guard monitor == nil, let networkMonitor else { return }
    monitor = Task { [weak self] in
      for await status in networkMonitor.statusUpdates() where status == .online {
        await self?.networkIsBack()
      }
    }
  }

  private func networkIsBack() {
    if wake != nil { logger.info("The network is back: reconnecting now.") }
    wake?.fulfill(())
  }

  /// The run loop: connect, and after each lost connection or failed attempt wait out the backoff and try again,
  /// while the app wants the connection.
  private func keepConnected(_ run: RunLoop) async {
    var attempt = 0
    var lastReason: SocketDisconnectReason?
    while run.wanted, !Task.isCancelled {
      if attempt > 0 {
        guard configuration.reconnection.allows(attempt: attempt) else { break }
        let delay = configuration.reconnection.delay(beforeAttempt: attempt)
        fanOut.publish(.state(.reconnecting(attempt: attempt, delay: delay)))
        await backoff(delay)
        guard run.wanted, !Task.isCancelled else { break }
      }
      switch await connectOnce() {
      case .refused(let message):
        logger.info("The server refused the connection to \(configuration.namespace): \(message)")
        run.wanted = false
        if self.run === run { fanOut.publish(.state(.refused(message: message))) }
        return
      case .failed(let why):
        logger.info("Connection attempt \(attempt + 1) failed: \(why)")
        attempt += 1
      case .ended(let reason):
        logger.info("Disconnected from \(configuration.namespace): \(reason).")
        lastReason = reason
        if self.run === run { fanOut.publish(.state(.disconnected(reason))) }
        if !reason.reconnects { run.wanted = false }
        attempt = 1
      }
    }
    guard self.run === run else { return }
    switch fanOut.current {
    case .disconnected, .refused, .suspended: break
    default: fanOut.publish(.state(.disconnected(run.wanted ? lastReason : .ioClientDisconnect)))
    }
    run.wanted = false
  }

  /// Waits `delay`, or less if the network comes back or the app connects or disconnects meanwhile.
  private func backoff(_ delay: Duration) async {
    let wake = OneShot<Void>()
    self.wake = wake
    let sleep = self.sleep
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        try? await sleep(delay)
        wake.fulfill(())
      }
      group.addTask { await wake.value() }
      await group.next()
      wake.fulfill(())
      group.cancelAll()
    }
    if self.wake === wake { self.wake = nil }
  }

  /// One connection, from opening the WebSocket until it ends.
  private func connectOnce() async -> Outcome {
    generation += 1
    let live = LiveConnection(generation: generation)
    self.live = live
    fanOut.publish(.state(.connecting))
    let generation = self.generation
    live.timer = timers.after(configuration.connectTimeout) { [weak self] in await self?.connectTimedOut(generation) }
    let attempt = Task { await self.attempt(generation) }
    live.task = attempt
    let outcome = await withTaskCancellationHandler {
      await attempt.value
    } onCancel: {
      attempt.cancel()
    }
    await end(live)
    return outcome
  }

  private func attempt(_ generation: Int) async -> Outcome {
    guard let live, live.generation == generation else { return .ended(.ioClientDisconnect) }
    do {
      let socket = try await transport.connect(to: engineURL, headers: configuration.headers)
      live.socket = socket
      try Task.checkCancellation()
      var inbound = socket.messages.makeAsyncIterator()
      guard let first = try await inbound.next() else {
        throw SocketIOError(.invalidPacket, "The server closed the connection before its handshake.")
      }
      guard case .open(let handshake) = try EnginePacket.decode(first) else {
        throw SocketIOError(.invalidPacket, "The server's first packet is not the Engine.IO handshake.")
      }
      live.handshake = handshake
      live.lastPing = now()
      startWatchdog(live)
      let auth: SocketValue?
      do {
        auth = try await configuration.auth()
      } catch {
        return .refused("The auth provider failed: \("\(error)".clause).")
      }
      try Task.checkCancellation()
      try await send(SocketPacket(.connect, namespace: configuration.namespace, data: auth), on: live)
      while let message = try await inbound.next() {
        if let outcome = try await handle(message, on: live) { return outcome }
      }
      if live.endReason == nil { live.endReason = .transportClose }
    } catch {
      if live.endReason == nil, live.sid != nil { live.endReason = .transportError }
      if live.failure == nil { live.failure = "\(error)" }
    }
    return outcome(of: live)
  }

  /// How `live` ended: a disconnection if it had joined the namespace (or the app stopped it), else a failed attempt.
  private func outcome(of live: LiveConnection) -> Outcome {
    if let reason = live.endReason, live.sid != nil || reason == .ioClientDisconnect { return .ended(reason) }
    if live.timedOut { return .failed("no connection within \(configuration.connectTimeout)") }
    if live.endReason == .pingTimeout { return .failed("no ping from the server within the heartbeat") }
    return .failed(live.failure ?? "the connection closed before joining the namespace")
  }

  /// Closes `live`'s WebSocket (awaited when the app asked, in the background otherwise), stops its timers and fails
  /// the acknowledgements it still awaited.
  private func end(_ live: LiveConnection) async {
    live.timer?.cancel()
    live.watchdog?.cancel()
    if self.live === live { self.live = nil }
    for (id, pending) in pendingAcks where pending.generation == live.generation {
      pendingAcks[id] = nil
      pending.timer?.cancel()
      pending.waiter.fulfill(
        .failure(SocketIOError(.disconnected, "The connection ended before the acknowledgement came.")))
    }
    guard let socket = live.socket else { return }
    if live.endReason == .ioClientDisconnect {
      await socket.close(.normalClosure, reason: "")
    } else {
      Task { await socket.close(.normalClosure, reason: "") }
    }
  }

  private func connectTimedOut(_ generation: Int) {
    guard let live, live.generation == generation, live.sid == nil, live.endReason == nil else { return }
    live.timedOut = true
    live.task?.cancel()
  }

  // MARK: - Heartbeat

  /// Arms the watchdog for the end of the heartbeat window; when it fires before the window closed (a ping moved it),
  /// it is armed again for the rest.
  private func startWatchdog(_ live: LiveConnection) {
    guard let remaining = heartbeatRemaining(live.generation) else { return }
    let generation = live.generation
    live.watchdog = timers.after(remaining) { [weak self] in await self?.watchdogFired(generation) }
  }

  private func watchdogFired(_ generation: Int) {
    guard let live, live.generation == generation, let remaining = heartbeatRemaining(generation) else { return }
    if remaining <= .zero { heartbeatMissed(generation) } else { startWatchdog(live) }
  }

  /// The time left until the heartbeat window closes, `nil` once the connection is gone.
  private func heartbeatRemaining(_ generation: Int) -> Duration? {
    guard let live, live.generation == generation, live.endReason == nil, let handshake = live.handshake else {
      return nil
    }
    return live.lastPing + handshake.heartbeatWindow - now()
  }

  private func heartbeatMissed(_ generation: Int) {
    guard let live, live.generation == generation, live.endReason == nil else { return }
    logger.info("No ping from the server within the heartbeat: the connection is dead.")
    live.endReason = .pingTimeout
    live.task?.cancel()
  }

  // MARK: - Inbound

  /// Handles one inbound message; returns how the connection ends, when it does.
  private func handle(_ message: WebSocketMessage, on live: LiveConnection) async throws -> Outcome? {
    switch try EnginePacket.decode(message) {
    case .ping(let data):
      live.lastPing = now()
      try await write([EnginePacket.pong(data).message], on: live)
    case .pong, .noop, .upgrade:
      break
    case .open:
      throw SocketIOError(.invalidPacket, "The server sent a second Engine.IO handshake.")
    case .close:
      live.endReason = .transportClose
      return outcome(of: live)
    case .message(let text):
      guard live.assembling == nil else {
        throw SocketIOError(.invalidPacket, "A packet came while a binary packet still awaited attachments.")
      }
      let (packet, attachments) = try SocketPacket.decode(text)
      guard attachments > 0 else { return try deliver(packet, on: live) }
      live.assembling = PartialPacket(packet: packet, expected: attachments)
    case .binary(let data):
      guard var partial = live.assembling else {
        throw SocketIOError(.invalidPacket, "An attachment came without a binary packet.")
      }
      partial.attachments.append(data)
      partial.bytes += data.count
      guard partial.bytes <= Self.maxBinaryPacketBytes else {
        throw SocketIOError(.invalidPacket, "A binary packet's attachments exceed 64 MiB.")
      }
      guard partial.attachments.count == partial.expected else {
        live.assembling = partial
        return nil
      }
      live.assembling = nil
      return try deliver(partial.packet.resolving(partial.attachments), on: live)
    }
    return nil
  }

  /// Acts on one whole Socket.IO packet.
  private func deliver(_ packet: SocketPacket, on live: LiveConnection) throws -> Outcome? {
    guard packet.namespace == configuration.namespace, self.live === live else { return nil }
    switch packet.kind {
    case .connect:
      guard let sid = packet.data?["sid"]?.string else {
        throw SocketIOError(.invalidPacket, "The server's CONNECT has no socket id.")
      }
      live.sid = sid
      live.timer?.cancel()
      logger.info("Connected to \(configuration.namespace).")
      fanOut.publish(.state(.connected(sid: sid)))
    case .connectError:
      return .refused(packet.data?["message"]?.string ?? packet.data?.string ?? "no reason given")
    case .disconnect:
      live.endReason = .ioServerDisconnect
      return .ended(.ioServerDisconnect)
    case .event, .binaryEvent:
      guard live.sid != nil, let (name, args) = packet.event else { return nil }
      fanOut.publish(
        .event(
          SocketEvent(
            name: name, args: args, namespace: packet.namespace, ackID: packet.id, generation: live.generation)))
    case .ack, .binaryAck:
      guard let id = packet.id, let args = packet.ackArguments, let pending = pendingAcks[id],
        pending.generation == live.generation
      else { return nil }
      pendingAcks[id] = nil
      pending.timer?.cancel()
      pending.waiter.fulfill(.success(args))
    }
    return nil
  }

  // MARK: - Emitting

  /// Emits `event` with `args` and returns once it is written to the connection. Delivery is confirmed only by an
  /// acknowledgement: see ``emitWithAck(_:_:timeout:)``.
  ///
  /// - Throws: ``SocketIOError``: ``SocketIOError/Kind/notConnected`` at once while not connected,
  ///   ``SocketIOError/Kind/invalidArguments`` for a reserved name or an argument JSON cannot carry,
  ///   ``SocketIOError/Kind/payloadTooLarge`` over the server's `maxPayload` (nothing is sent),
  ///   ``SocketIOError/Kind/disconnected`` when the connection fails while sending.
  public func emit(_ event: String, _ args: [SocketValue] = []) async throws {
    try Self.validate(event)
    let live = try connectedLive()
    try await send(.event(event, args, namespace: configuration.namespace), on: live)
  }

  /// Emits `event` with `args`, asks the server to acknowledge it, and returns the acknowledgement's arguments.
  ///
  /// - Parameters:
  ///   - event: The event's name: not empty, not reserved.
  ///   - args: Its arguments.
  ///   - timeout: How long to wait; ``SocketIOConfiguration/ackTimeout`` by default.
  /// - Throws: as ``emit(_:_:)``, and ``SocketIOError/Kind/ackTimeout`` when no acknowledgement comes in time,
  ///   ``SocketIOError/Kind/disconnected`` when the connection ends first (in both cases the server may or may not
  ///   have handled the event), ``SocketIOError/Kind/tooManyPendingAcks``, or `CancellationError`.
  public func emitWithAck(_ event: String, _ args: [SocketValue] = [], timeout: Duration? = nil) async throws
    -> [SocketValue]
  {
    try Self.validate(event)
    let live = try connectedLive()
    guard pendingAcks.count < configuration.maxPendingAcks else {
      throw SocketIOError(
        .tooManyPendingAcks, "\(pendingAcks.count) acknowledgements are awaited already; nothing was sent.")
    }
    // Ids stay below 10^15: the most digits a packet's id may have.
    let id = nextAckID
    nextAckID = (nextAckID + 1) % 1_000_000_000_000_000
    let waiter = OneShot<Result<[SocketValue], any Error>>()
    pendingAcks[id] = PendingAck(generation: live.generation, waiter: waiter)
    do {
      try await send(.event(event, args, namespace: configuration.namespace, id: id), on: live)
    } catch {
      pendingAcks[id] = nil
      throw error
    }
    if pendingAcks[id] != nil {
      let (wait, generation) = (timeout ?? configuration.ackTimeout, live.generation)
      pendingAcks[id]?.timer = timers.after(wait) { [weak self] in
        await self?.ackTimedOut(id, generation: generation, after: wait)
      }
    }
    return try await withTaskCancellationHandler {
      try await waiter.value().get()
    } onCancel: {
      waiter.fulfill(.failure(CancellationError()))
    }
  }

  /// Answers `event`'s request for an acknowledgement with `args`, on the connection it came on. Does nothing when
  /// the server asked for none.
  ///
  /// - Throws: ``SocketIOError/Kind/disconnected`` when that connection has ended; as ``emit(_:_:)`` otherwise.
  public func acknowledge(_ event: SocketEvent, with args: [SocketValue] = []) async throws {
    guard let id = event.ackID else { return }
    guard let live, live.generation == event.generation, live.sid != nil, live.endReason == nil else {
      throw SocketIOError(.disconnected, "The connection the event came on has ended; its acknowledgement is moot.")
    }
    try await send(SocketPacket(.ack, namespace: event.namespace, id: id, data: .array(args)), on: live)
  }

  private func ackTimedOut(_ id: Int, generation: Int, after wait: Duration) {
    guard let pending = pendingAcks[id], pending.generation == generation else { return }
    pendingAcks[id] = nil
    pending.waiter.fulfill(.failure(SocketIOError(.ackTimeout, "No acknowledgement within \(wait).")))
  }

  /// The number of acknowledgements awaited.
  var pendingAckCount: Int { pendingAcks.count }

  /// The number of streams listening: what a test of many cycles checks.
  nonisolated var subscriberCount: Int { fanOut.subscriberCount }

  /// Whether no connection, run loop or backoff is left: what a test of many cycles checks.
  var hasNoConnection: Bool { live == nil && wake == nil && (run == nil || run?.wanted == false) }

  private func connectedLive() throws(SocketIOError) -> LiveConnection {
    guard let live, live.sid != nil, live.endReason == nil else {
      throw SocketIOError(
        .notConnected,
        "Not connected to \(configuration.namespace) (\(state)); nothing was sent. Emit once states() says connected.")
    }
    return live
  }

  private static let reservedEvents: Set<String> = [
    "connect", "connect_error", "disconnect", "disconnecting", "newListener", "removeListener",
  ]

  private static func validate(_ event: String) throws(SocketIOError) {
    guard !event.isEmpty, !reservedEvents.contains(event) else {
      throw SocketIOError(.invalidArguments, "\(event.debugDescription) cannot be emitted: the name is reserved.")
    }
  }

  // MARK: - Outbound

  private func send(_ packet: SocketPacket, on live: LiveConnection) async throws {
    let (text, attachments) = try packet.encoded()
    let messages = [EnginePacket.message(text).message] + attachments.map { EnginePacket.binary($0).message }
    if let limit = live.handshake?.maxPayload, let large = messages.first(where: { $0.byteCount > limit }) {
      throw SocketIOError(
        .payloadTooLarge,
        "A message of \(large.byteCount) bytes is over the server's limit of \(limit); nothing was sent.")
    }
    try await write(messages, on: live)
  }

  /// Writes `messages` back to back: a binary packet's attachments follow it with nothing in between.
  private func write(_ messages: [WebSocketMessage], on live: LiveConnection) async throws {
    guard let socket = live.socket else {
      throw SocketIOError(.notConnected, "Not connected; nothing was sent.")
    }
    do {
      try await live.turns.run {
        for message in messages { try await socket.send(message) }
      }
    } catch let error as WebSocketError {
      throw SocketIOError(.disconnected, "The connection failed while sending: \(error.description.clause).")
    }
  }
}

// MARK: - Connection state

extension SocketIOClient {
  /// How one connection attempt ended.
  enum Outcome: Sendable {
    /// The server refused the namespace (CONNECT_ERROR), or the auth provider failed: no reconnection.
    case refused(String)
    /// The attempt failed before joining the namespace: try again after the backoff.
    case failed(String)
    /// A joined connection ended, or the app stopped the attempt.
    case ended(SocketDisconnectReason)
  }

  /// One run loop: whether the app still wants its connection, and the task that keeps it.
  final class RunLoop {
    var wanted = true
    var task: Task<Void, Never>?
  }

  /// One WebSocket connection and what the client knows of it.
  final class LiveConnection {
    let generation: Int
    var socket: (any WebSocketConnection)?
    var handshake: EngineHandshake?
    var sid: String?
    var lastPing: Duration = .zero
    var endReason: SocketDisconnectReason?
    var timedOut = false
    var failure: String?
    var task: Task<Outcome, Never>?
    var timer: DeadlineTimer?
    var watchdog: DeadlineTimer?
    var assembling: PartialPacket?
    let turns = AsyncTurns()

    init(generation: Int) { self.generation = generation }
  }

  /// A binary packet awaiting its attachments.
  struct PartialPacket {
    var packet: SocketPacket
    var expected: Int
    var attachments: [Data] = []
    var bytes = 0
  }

  /// An acknowledgement awaited.
  struct PendingAck {
    let generation: Int
    let waiter: OneShot<Result<[SocketValue], any Error>>
    var timer: DeadlineTimer?
  }
}
