import Foundation
import KeelConcurrency
import KeelFiles
import Logging
import Networking
import Persistence
import RateLimiting

/// The composition root: every service, built once with its collaborators (REQUIREMENTS A2, A6).
///
/// ``live(configuration:)`` is the only place where Keel chooses concrete collaborators: the URLSession transport,
/// the Keychain (Apple platforms) or an encrypted owner-only file (elsewhere) for tokens, the
/// continuous clock. ``wired(configuration:environment:)`` builds the same graph around any ``Environment``, which is
/// how tests run it on fakes. No singletons, no globals, no service locator: each service receives what it uses
/// through its initializer.
///
/// Each service is built the first time it is asked for, then shared: an app that only manages users never opens
/// the image cache. Build one `Dependencies` per process and data directory: the image
/// cache's directory has one owner at a time.
///
/// ```swift
/// import Foundation
///
/// let dataDirectory = URL(fileURLWithPath: "myapp-data", isDirectory: true)
/// let dependencies = Dependencies.live(configuration: KeelConfiguration(dataDirectory: dataDirectory))
/// try dependencies.users.initApplication(applicationId: "A1B2C3D4-E5F6-7890", apiToken: "your-api-token")
/// let avatar = try await dependencies.images.data(for: URL(string: "https://cdn.example.com/alice.png")!)
/// ```
public final class Dependencies: Sendable {
  /// The configuration the services are built from.
  public let configuration: KeelConfiguration
  /// The collaborators the services are built around.
  public let environment: Environment

  private let usersService: Lazy<UserManager, Never>
  private let sessionsService: Lazy<SessionManager, Never>
  /// Built on first use like the others, but their builds can fail, and a failed one is tried again on the next use.
  private let imagesService: Lazy<ImageLoader, any Error>
  private let eventsService: Lazy<EventTracker, any Error>
  /// The services of products built above Domain (``product(_:build:)``), in the order they were built.
  private let products = Locked<[(id: ObjectIdentifier, service: any ProductService)]>([])
  /// Where the image cache and the event queue go when there is no data directory; removed with this object.
  private let scratch: ScratchDirectory

  private init(configuration: KeelConfiguration, environment: Environment) {
    self.configuration = configuration
    self.environment = environment
    let scratch = ScratchDirectory()
    self.scratch = scratch
    usersService = Lazy { Self.makeUsers(configuration, environment) }
    sessionsService = Lazy { Self.makeSessions(configuration, environment) }
    imagesService = Lazy { try Self.makeImages(configuration, environment, scratch: scratch) }
    eventsService = Lazy { try Self.makeEvents(configuration, environment, scratch: scratch) }
    startEventsAtLaunch()
  }

  /// Builds the event tracker now, in the background, when events are configured to deliver on their own: what an
  /// earlier run left is delivered at launch, before the app tracks anything (REQUIREMENTS E3).
  private func startEventsAtLaunch() {
    guard configuration.eventsAPIToken != nil, configuration.events.deliversOnItsOwn else { return }
    let (events, logger) = (eventsService, environment.logger)
    Task {
      do {
        _ = try events.value()
      } catch {
        logger.error("The event tracker could not start at launch; it is tried again on first use: \(error)")
      }
    }
  }

  /// The user manager (U1–U13).
  public var users: UserManager { usersService.value() }
  /// Sign-in, tokens and the authenticated client of the chat backend (A4–A6).
  public var sessions: SessionManager { sessionsService.value() }
  /// The image loader (A8).
  ///
  /// - Throws: the disk cache's `PersistenceError` when neither the data directory's `images` folder nor a temporary
  ///   directory can hold it (a full or read-only disk), or ``ImageLoaderError`` for limits out of range. The next
  ///   use tries again.
  public var images: ImageLoader {
    get throws { try imagesService.value() }
  }
  /// The event tracker (E1–E14): built at launch when ``KeelConfiguration/eventsAPIToken`` is set and it delivers on
  /// its own (its uploader then delivers what an earlier run left at once), otherwise on first use.
  ///
  /// - Throws: ``EventTrackerError`` of kind `EventTrackerError.Kind.invalidConfiguration` when the configuration
  ///   has no ``KeelConfiguration/eventsAPIToken`` or invalid limits, or `EventTrackerError.Kind.storage` when no
  ///   directory can hold its queue. The next use tries again.
  public var events: EventTracker {
    get throws { try eventsService.value() }
  }

  /// The service of a product built above Domain (the chat's, `dependencies.chat`, is one): built by `build` the
  /// first time it is asked for, then shared like the others, and stopped by ``shutDown()``. A build that throws is
  /// tried again on the next use. `build` runs under a lock, so it must not ask for another product's service.
  public func product<Service: ProductService>(
    _ type: Service.Type, build: (Dependencies) throws -> Service
  ) throws -> Service {
    try products.withLock { products in
      let id = ObjectIdentifier(type)
      if let built = products.first(where: { $0.id == id })?.service as? Service { return built }
      let service = try build(self)
      products.append((id, service))
      return service
    }
  }

  /// A folder of `name` in the data directory, else in a temporary directory removed with this object: where a
  /// product keeps its files.
  public func folder(_ name: String) throws -> URL {
    try environment.dataDirectory?.appendingPathComponent(name, isDirectory: true) ?? scratch.folder(name)
  }

  /// Stops what runs on its own — the products' services (the chat's outbox and socket), the event tracker's
  /// uploader — if they were built, and waits for them: call it before the process ends or the object goes. What they
  /// had not sent stays queued for the next run.
  public func shutDown() async {
    for product in products.withLock({ $0 }).reversed() { await product.service.shutDown() }
    await eventsService.built?.shutDown()
  }

  /// The logger every service logs through.
  public var logger: Logger { environment.logger }

  /// Every service, built for the real world from `configuration`.
  ///
  /// Files go under the configuration's data directory. If it cannot be created, the failure is logged at `error`
  /// and the user cache and tokens are kept in memory for this run, so that the app still works; a damaged token
  /// store is set aside and started afresh.
  public static func live(configuration: KeelConfiguration) -> Dependencies {
    var logger = Logger(label: "keel")
    logger.logLevel = configuration.logLevel
    var directory: URL? = configuration.resolvedDataDirectory
    do {
      if let directory { try OwnerOnlyFiles.makeDirectory(directory, ownedByKeel: false) }
    } catch {
      logger.error("\(configuration.resolvedDataDirectory.path) cannot hold Keel's files; memory it is: \(error)")
      directory = nil
    }
    let (transport, monitor) = liveNetwork(configuration, logger: logger)
    let environment = Environment(
      transport: transport, monitor: monitor, secureStore: liveSecureStore(in: directory, logger: logger),
      dataDirectory: directory, clock: ContinuousClock(), now: { Date() }, logger: logger,
      webSocket: configuration.webSocketTransport ?? URLSessionWebSocketTransport(),
      settings: liveSettings(in: directory, logger: logger))
    return wired(configuration: configuration, environment: environment)
  }

  /// Every service, built from `configuration` around the collaborators in `environment`.
  public static func wired(configuration: KeelConfiguration, environment: Environment) -> Dependencies {
    Dependencies(configuration: configuration, environment: environment)
  }

  /// URLSession, and the platform's path monitor on Apple platforms; elsewhere a monitor that infers connectivity
  /// from the transport's failures and probes the backend until it answers again.
  private static func liveNetwork(
    _ configuration: KeelConfiguration, logger: Logger
  ) -> (any HTTPTransport, any NetworkMonitor) {
    #if canImport(Network)
      return (configuration.transport ?? URLSessionTransport(), PathNetworkMonitor())
    #else
      let base = configuration.transport ?? URLSessionTransport()
      // The backend when there is one; else the Platform API the user manager talks to.
      let probed =
        configuration.eventsBaseURL ?? configuration.backendBaseURL ?? configuration.sendbirdBaseURL
        ?? URL(string: "https://api.sendbird.com")!
      let probe = InferredNetworkMonitor.probe(probed, over: base)
      let monitor = InferredNetworkMonitor(probe: probe, clock: ContinuousClock(), logger: logger)
      return (MonitoredTransport(base, reportingTo: monitor), monitor)
    #endif
  }

  /// `settings.json` in `directory`; `nil`, logged, when there is no directory or the file cannot be read.
  private static func liveSettings(in directory: URL?, logger: Logger) -> (any KeyValueStore)? {
    guard let directory else { return nil }
    do {
      return try FileKeyValueStore(url: directory.appendingPathComponent("settings.json"))
    } catch {
      logger.error("The settings file cannot be read; the chat's settings are not kept this run: \(error)")
      return nil
    }
  }

  /// Where the event tracker keeps its anonymous id, user and consent: the environment's settings, else a file beside
  /// its queue, else memory for this run (logged).
  static func eventsSettings(_ environment: Environment, besides queueURL: URL) -> any KeyValueStore {
    if let settings = environment.settings { return settings }
    do {
      return try FileKeyValueStore(
        url: queueURL.deletingLastPathComponent().appendingPathComponent("events-settings.json"))
    } catch {
      environment.logger.error("The events' settings cannot be kept; a new anonymous id each run: \(error)")
      return InMemoryKeyValueStore()
    }
  }

  /// The Keychain on Apple platforms; elsewhere an encrypted owner-only file in `directory`, set aside and started
  /// afresh when it is damaged (the tokens are lost, not the app), or memory when there is no directory.
  private static func liveSecureStore(in directory: URL?, logger: Logger) -> any SecureStore {
    #if canImport(Security)
      return KeychainSecureStore(service: "dev.keel")
    #else
      guard let directory else { return InMemorySecureStore() }
      let secure = directory.appendingPathComponent("secure", isDirectory: true)
      do {
        return try EncryptedFileSecureStore(directory: secure)
      } catch {
        let aside = directory.appendingPathComponent("secure.damaged-\(Int(Date().timeIntervalSince1970))")
        logger.error("The token store is unusable and is set aside as \(aside.lastPathComponent): \(error)")
        do {
          try FileManager.default.moveItem(at: secure, to: aside)
          return try EncryptedFileSecureStore(directory: secure)
        } catch {
          logger.error("The token store cannot be started afresh; tokens are kept in memory for this run: \(error)")
          return InMemorySecureStore()
        }
      }
    #endif
  }
}

/// The service of a product built above Domain on ``Dependencies`` (``Dependencies/product(_:build:)``): shared by
/// everything that asks for it, and stopped with the rest.
public protocol ProductService: AnyObject, Sendable {
  /// Stops what the service runs on its own and waits for it.
  func shutDown() async
}

// The process's shared user-manager limiters run on the real clock: a concrete choice, so made here, in the composition
// root, like every other.
extension UserManagerLimiters {
  /// The set this process shares for the policy `rate` and `queueCapacity`, on the continuous clock: every user
  /// manager built with it, in any part of the app, takes its turns from the same limiter per application.
  ///
  /// Managers configured with a different policy get a different set: the policy is part of what they share.
  public static func shared(
    rate: Rate = UserManager.requestRate, queueCapacity: Int = UserManager.queueCapacity
  ) -> UserManagerLimiters {
    let policy = SharedPolicy(rate: rate, queueCapacity: queueCapacity)
    return processWide.withLock { sets in
      if let existing = sets[policy] { return existing }
      let created = UserManagerLimiters(rate: rate, queueCapacity: queueCapacity, clock: ContinuousClock())
      sets[policy] = created
      return created
    }
  }

  private struct SharedPolicy: Hashable {
    let rate: Rate
    let queueCapacity: Int
  }

  private static let processWide = Locked<[SharedPolicy: UserManagerLimiters]>([:])
}
