import Foundation
import KeelConcurrency
import KeelJSON
import Logging
import Networking
import Persistence

/// Delivers analytics events so that none is lost: through crashes, outages and bad networks (REQUIREMENTS E1–E9).
///
/// - **Durable first (E2, E14):** ``track(_:)`` returns once the event is committed to a SQLite queue on disk (WAL);
///   it never waits for the network. ``EventTrackerConfiguration/durability`` says what that survives: the app being
///   killed (the default, microseconds per event), or a power loss too (an `fsync` per event). An event is deleted
///   only after the server acknowledged it.
/// - **Who and where (E10):** every event carries the installation's anonymous id and the identified user
///   (``identify(userId:traits:)``, ``reset()``), and a context (app, OS, device, locale, time zone, library, session)
///   added before the app's own ``EventPlugin``s run. **Consent (E11):** ``optOut(purgingQueued:)`` stops collection
///   until ``optIn()``, across restarts.
/// - **Automatic (E3, E7):** one uploader runs from the moment the tracker exists. Events left by an earlier run, even
///   one that was killed, are delivered at start; the host app adds no code and need not wait before exiting.
/// - **Batched and bounded (E5):** events leave oldest first, up to ``EventTrackerConfiguration/maxBatchCount`` and
///   ``EventTrackerConfiguration/maxBatchBytes`` per upload, one upload at a time; an upload starts once
///   ``EventTrackerConfiguration/flushCount`` events were tracked, every ``EventTrackerConfiguration/flushInterval``,
///   or on ``flush()``. The queue is capped, its overflow policy explicit and its drops counted.
/// - **Retried (E4):** a 408, 429, 5xx, other non-2xx or transport failure is retried after an exponential delay with
///   full jitter (or the server's `Retry-After`), and the delay is stored with the events, so a restart neither
///   forgets nor hammers. A batch refused as too large (413) or malformed (400) is split to isolate the culprit; a
///   single event the server still refuses, with its reason, is dead-lettered, never silently gone and never retried
///   without end (E12): ``deadLetters(limit:)`` shows them, ``requeueDeadLetters(_:)`` puts them back.
/// - **Connectivity-aware (E6):** no upload is tried while the `NetworkMonitor` says offline; delivery
///   resumes as soon as it says online.
/// - **Observable (E8):** ``status`` and ``deliveryStatus``; ``flush()`` reports what it delivered and set aside, and
///   ``drain(timeout:)`` waits until everything is delivered or the time is up. **Idempotent (E9):** every event
///   carries its ``AnalyticsEvent/eventId``, so a redelivery is counted once by the server.
/// - **Two wire formats (E13):** Keel's ingestion API, or the Segment HTTP Tracking API
///   (``EventTrackerConfiguration/wireFormat``).
///
/// ```swift
/// import Foundation
/// import Networking
/// import Persistence
///
/// let dataDirectory = URL(fileURLWithPath: "myapp-data", isDirectory: true)
/// let tracker = try EventTracker(
///   baseURL: URL(string: "https://chat.example.com")!, apiToken: "your-events-token",
///   queueURL: dataDirectory.appending(path: "events.sqlite"),
///   settings: try FileKeyValueStore(url: dataDirectory.appending(path: "settings.json")), transport: URLSessionTransport(),
///   monitor: ManualNetworkMonitor(),  // PathNetworkMonitor() on Apple platforms
///   clock: ContinuousClock())
/// try await tracker.track(AnalyticsEvent(name: "app_open"))
/// ```
public final class EventTracker: Sendable {
  /// The limits and policies.
  public let configuration: EventTrackerConfiguration
  /// The events waiting for upload, and the dead letters.
  public let queue: DurableQueue<AnalyticsEvent>

  let client: HTTPClient
  let baseURL: URL
  let apiToken: String
  let monitor: any NetworkMonitor
  let elapsed: @Sendable () -> Duration
  let sleep: @Sendable (Duration) async throws -> Void
  let now: @Sendable () -> Date
  let random: @Sendable () -> Double
  let logger: Logger
  /// Where the identity and the consent are kept.
  let settings: any KeyValueStore
  /// The identity and the consent, as last stored.
  let identity: Locked<AnalyticsIdentity>
  /// The session the built-in enrichment names.
  let session = Locked(AnalyticsSession())
  /// The built-in enrichment's context, read once, with its stored form.
  let builtInContext: BuiltInContext
  /// The app's plugins, in order, after the built-in enrichment.
  let plugins: [any EventPlugin]
  let broadcast: Broadcast<DeliveryStatus>
  let control = Locked(Control())
  /// Wakes the uploader: an event crossed the flush count, a flush was asked for, connectivity changed.
  let wakeSignal = WakeSignal()
  /// The furthest a retry date this tracker sets can be: anything later was set by a clock that moved since.
  var longestWait: Duration { max(configuration.maxRetryDelay, DeliveryBackoff.longestRetryAfter) + .seconds(60) }
  private let tasks = Locked<[Task<Void, Never>]>([])
  /// The observer of the app going to the background, on Apple platforms with UIKit.
  let backgroundObserver = Locked<ObserverToken?>(nil)
  /// Commits tracked events, many per transaction when many are tracked at once.
  let committer: TrackCommitter
  /// Reads the counts kept on disk into the status, once, before any `track` changes them; answers how many events
  /// an earlier run left pending.
  let startup: Task<Int, Never>

  /// What the tracking side tells the uploader.
  struct Control {
    var trackedSinceUpload = 0
    var flushRequested = false
    var flushWaiters: [CheckedContinuation<Void, Never>] = []
    var isShutDown = false
    /// The events dead-lettered by this tracker, newest last, at most ``SetAsideLog/capacity``: what a flush reports.
    var setAside = SetAsideLog()
  }

  /// A tracker that delivers to `baseURL`, keeping its queue in the SQLite file `queueURL`. Its uploader starts at
  /// once, with whatever an earlier run left in the file.
  ///
  /// - Parameters:
  ///   - baseURL: The ingestion API (`/v1/events/batch` below it).
  ///   - apiToken: The token sent in the `Api-Token` header; not empty, no spaces or control characters.
  ///   - queueURL: The queue's database file; one tracker per file.
  ///   - settings: Where the anonymous id, the identified user and the consent are kept across restarts, such as the
  ///     app's settings (`Dependencies` passes its own).
  ///   - transport: How uploads travel.
  ///   - monitor: Whether the device is online; uploads wait while it says offline.
  ///   - configuration: Batching, retries and limits.
  ///   - clock: The clock of flush intervals and retry delays.
  ///   - now: This device's time: event retry dates are stored in it.
  ///   - random: A number in `0..<1` for the jitter.
  ///   - logger: Where failures and dead letters are reported; never the token.
  ///   - context: What the built-in enrichment adds to every event; by default this app and device.
  ///   - plugins: The app's plugins, run in order on every event after the built-in enrichment.
  /// - Throws: ``EventTrackerError`` for a configuration out of range or an empty token, or of kind
  ///   `EventTrackerError.Kind.storage` when the queue's file or the settings cannot be opened.
  public init(
    baseURL: URL, apiToken: String, queueURL: URL, settings: any KeyValueStore, transport: any HTTPTransport,
    monitor: any NetworkMonitor,
    configuration: EventTrackerConfiguration = EventTrackerConfiguration(), clock: any Clock<Duration>,
    now: @escaping @Sendable () -> Date = { Date() },
    random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
    logger: Logger = Logger(label: "keel.events", factory: { _ in SwiftLogNoOpLogHandler() }),
    context: EventContext = .current, plugins: [any EventPlugin] = []
  ) throws {
    try configuration.validate()
    guard !apiToken.isEmpty else { throw EventTrackerError(.invalidConfiguration, "The API token is empty.") }
    // A header value with a line break or another control character would be refused by the transport, or split
    // the request; spaces have no place in a token either.
    guard !apiToken.unicodeScalars.contains(where: { UserValidation.isRefused($0) || $0 == " " }) else {
      throw EventTrackerError(.invalidConfiguration, "The API token holds spaces or control characters.")
    }
    do {
      queue = try DurableQueue(
        url: queueURL, capacity: configuration.capacity, overflow: configuration.overflow,
        deadLetterCapacity: configuration.deadLetterCapacity, durability: configuration.durability, now: now)
    } catch {
      throw EventTrackerError(.storage, "Cannot open the event queue at \(queueURL.path): \(error)", underlying: error)
    }
    do {
      let (identity, unreadable) = try AnalyticsIdentity.load(from: settings)
      if let unreadable { logger.error("The analytics identity could not be read; a new one starts: \(unreadable)") }
      self.settings = settings
      self.identity = Locked(identity)
    } catch {
      throw EventTrackerError(.storage, "Cannot keep the analytics identity: \(error)", underlying: error)
    }
    builtInContext = BuiltInContext(context.json)
    self.plugins = plugins
    self.configuration = configuration
    self.baseURL = baseURL
    self.apiToken = apiToken
    self.monitor = monitor
    self.now = now
    self.random = random
    self.logger = logger
    // The ingestion API answers its own errors in the chat backends' shape, and a bad `Api-Token` in the Platform
    // API's.
    client = HTTPClient(
      transport: transport, serverErrorDecoders: [.chatBackend, .sendbird, .segment], clock: clock, logger: logger)
    (elapsed, sleep) = Self.timekeeping(clock)
    let broadcast = Broadcast(
      DeliveryStatus(isOnline: monitor.status == .online, isOptedOut: identity.withLock { $0.optedOut }),
      buffering: .bufferingNewest(1))
    self.broadcast = broadcast
    committer = TrackCommitter(
      queue: queue, coalesces: configuration.overflow == .dropOldest,
      writesInline: configuration.durability == .survivesCrash
    ) { stored, dropped in
      broadcast.update {
        $0.pending += stored - dropped
        $0.dropped += dropped
      }
    }
    startup = Task { [queue, logger] in await Self.loadCounts(of: queue, into: broadcast, logger: logger) }
    start()
  }

  /// Where delivery stands now.
  public var status: DeliveryStatus { broadcast.current }

  /// Where delivery stands, once the tracker has counted what an earlier run left in its file: right after
  /// opening, ``status`` may not count those events yet.
  public var loadedStatus: DeliveryStatus {
    get async {
      _ = await startup.value
      return broadcast.current
    }
  }

  /// A new stream of the delivery status: the current one, then every change. A slow reader gets the latest.
  public var deliveryStatus: AsyncStream<DeliveryStatus> { broadcast.updates() }

  /// Stops the uploader and waits for it (the tracker runs until then); an upload in flight is abandoned and its events stay pending, to be
  /// delivered by the next tracker on the same file. Later ``track(_:)`` calls fail.
  public func shutDown() async {
    let running = tasks.withLock { tasks in
      defer { tasks = [] }
      return tasks
    }
    let waiters = control.withLock { control in
      control.isShutDown = true
      defer { control.flushWaiters = [] }
      return control.flushWaiters
    }
    for waiter in waiters { waiter.resume() }
    for task in running { task.cancel() }
    for task in running { await task.value }
  }

  deinit {
    for task in tasks.withLock({ $0 }) { task.cancel() }
    broadcast.finish()
  }

  private func start() {
    let monitor = monitor
    // The delivery loop keeps the tracker alive until `shutDown()`: an app keeps one tracker for its lifetime.
    let delivery = Task { [weak self] in _ = await self?.deliver() }
    let connectivity = Task { [weak self] in
      for await status in monitor.statusUpdates() {
        guard let self else { return }
        broadcast.update { $0.isOnline = status == .online }
        wake()
      }
    }
    tasks.withLock { $0 = [delivery, connectivity] }
    #if canImport(UIKit) && !os(watchOS)
      if configuration.deliversOnItsOwn { observeBackground() }
    #endif
  }

  private static func timekeeping<C: Clock<Duration>>(
    _ clock: C
  ) -> (@Sendable () -> Duration, @Sendable (Duration) async throws -> Void) {
    let origin = clock.now
    return ({ origin.duration(to: clock.now) }, { try await clock.sleep(for: $0) })
  }
}
