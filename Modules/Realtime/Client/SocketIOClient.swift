import Foundation
import KeelConcurrency
import KeelErrors
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
///   `SocketIOError.Kind.notConnected` otherwise. Nothing is buffered for later, so nothing is dropped silently:
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

  let transport: any WebSocketTransport
  private let networkMonitor: (any NetworkMonitor)?
  let logger: Logger
  let now: @Sendable () -> Duration
  private let sleep: @Sendable (Duration) async throws -> Void
  let timers: DeadlineTimers
  let fanOut = ActivityFanOut()

  /// The run loop in charge, and whether the app still wants the connection it keeps.
  var run: RunLoop?
  private var monitor: Task<Void, Never>?
  private var suspended = false
  var live: LiveConnection?
  var generation = 0
  var wake: OneShot<Void>?
  var pendingAcks: [Int: PendingAck] = [:]
  /// The one timer of every awaited acknowledgement, and the deadline it goes off at (``armAckTimer(for:)``).
  var ackTimer: (deadline: Duration, timer: DeadlineTimer)?
  var nextAckID = 0

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
  /// - Throws: `SocketIOError.Kind.invalidConfiguration` for a URL or namespace that cannot work.
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
    let sleepUntil: @Sendable (Duration) async throws -> Void
    (now, sleep, sleepUntil) = Self.timekeeping(clock)
    timers = DeadlineTimers(clock: clock, now: now, sleepUntil: sleepUntil)
  }

  deinit {
    monitor?.cancel()
    ackTimer?.timer.cancel()
    fanOut.finish()
  }

  /// The time since the client was made, a sleep for a duration, and a sleep until a time since the client was made.
  private static func timekeeping<C: Clock<Duration>>(
    _ clock: C
  ) -> (
    @Sendable () -> Duration, @Sendable (Duration) async throws -> Void, @Sendable (Duration) async throws -> Void
  ) {
    let origin = clock.now
    return (
      { origin.duration(to: clock.now) }, { try await clock.sleep(for: $0) },
      { try await clock.sleep(until: origin.advanced(by: $0), tolerance: nil) }
    )
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

  /// A new stream like ``activity()`` that holds at most `limit` items its reader has not taken, and 16 MiB of their
  /// arguments: while it is full, the client reads nothing more from its connection (back-pressure), so that a reader
  /// slower than the server costs a bounded amount of memory. The server's writes then wait on the network; a reader that stays behind for
  /// longer than the heartbeat loses the connection, which reconnects as after any drop (what the server sent
  /// meanwhile is lost, as Socket.IO promises nothing more). Every other stream of the client waits too. Dropping the
  /// stream lets the client go on.
  ///
  /// ```swift
  /// import Realtime
  ///
  /// func follow(_ client: SocketIOClient, writing write: (String) -> Void) async {
  ///   for await item in client.activity(holdingAtMost: 256) {
  ///     if case .event(let event) = item { write(event.name) }  // a slow write slows the reading, and no more
  ///   }
  /// }
  /// ```
  public nonisolated func activity(holdingAtMost limit: Int) -> AsyncStream<SocketActivity> {
    fanOut.pacedStream(limit: limit)
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
  /// acknowledgements fail with `SocketIOError.Kind.disconnected`, and nothing reconnects until ``connect()``.
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
}
