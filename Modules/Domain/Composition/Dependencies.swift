import Foundation
import Logging
import Networking
import Persistence
import RateLimiting

/// The composition root: every service, built once with its collaborators (REQUIREMENTS A2, A6).
///
/// ``live(configuration:)`` is the only place where Keel chooses concrete types: the URLSession transport, the
/// file-backed settings, the encrypted (or Keychain) token store, the continuous clock. Tests build the same graph
/// around fakes with ``wired(configuration:environment:)``, or assemble services by hand with the memberwise
/// initializer. No singletons, no globals, no service locator: each service receives what it uses.
///
/// ```swift
/// let dependencies = Dependencies.live(configuration: KeelConfiguration())
/// try dependencies.users.initApplication(applicationId: appID, apiToken: token)
/// ```
public struct Dependencies: Sendable {
  /// The configuration the services were built from.
  public let configuration: KeelConfiguration
  /// The user manager (U1–U13).
  public let users: UserManager
  /// The logger every service logs through.
  public let logger: Logger

  /// Services assembled by hand.
  public init(configuration: KeelConfiguration, users: UserManager, logger: Logger) {
    self.configuration = configuration
    self.users = users
    self.logger = logger
  }

  /// The collaborators the services are built around: what ``live(configuration:)`` chooses, and what tests fake.
  public struct Environment: Sendable {
    /// How requests travel.
    public var transport: any HTTPTransport
    /// Non-sensitive settings, such as the last application's id (U2).
    public var settings: any KeyValueStore
    /// Where the user cache is kept between runs; `nil` keeps it in memory.
    public var userCacheFile: URL?
    /// The clock every limiter, retry and timeout is measured on.
    public var clock: any Clock<Duration>
    /// Where every service logs.
    public var logger: Logger

    /// An environment.
    public init(
      transport: any HTTPTransport, settings: any KeyValueStore, userCacheFile: URL?, clock: any Clock<Duration>,
      logger: Logger
    ) {
      self.transport = transport
      self.settings = settings
      self.userCacheFile = userCacheFile
      self.clock = clock
      self.logger = logger
    }
  }

  /// Every service, built for the real world from `configuration`.
  ///
  /// Files go under the configuration's data directory. If a store there cannot be opened, the failure is logged at
  /// `error` and that store is kept in memory for this run, so that the app still works.
  public static func live(configuration: KeelConfiguration) -> Dependencies {
    var logger = Logger(label: "keel")
    logger.logLevel = configuration.logLevel
    let directory = configuration.resolvedDataDirectory
    let settings: any KeyValueStore
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      settings = try FileKeyValueStore(url: directory.appendingPathComponent("settings.json"))
    } catch {
      logger.error("Settings in \(directory.path) cannot be used; they are kept in memory for this run: \(error)")
      settings = InMemoryKeyValueStore()
    }
    let environment = Environment(
      transport: URLSessionTransport(), settings: settings,
      userCacheFile: directory.appendingPathComponent("users.json"), clock: ContinuousClock(), logger: logger)
    return wired(configuration: configuration, environment: environment)
  }

  /// Every service, built from `configuration` around the collaborators in `environment`.
  public static func wired(configuration: KeelConfiguration, environment: Environment) -> Dependencies {
    let limiter = usersLimiter(configuration, clock: environment.clock)
    let users = UserManager(
      transport: environment.transport, limiter: limiter,
      store: UserStore(file: environment.userCacheFile, logger: environment.logger),
      settings: environment.settings, baseURL: configuration.sendbirdBaseURL, clock: environment.clock,
      logger: environment.logger)
    return Dependencies(configuration: configuration, users: users, logger: environment.logger)
  }

  private static func usersLimiter<C: Clock<Duration>>(
    _ configuration: KeelConfiguration, clock: C
  ) -> any RateLimiter {
    LeakyBucket(rate: configuration.usersRate, capacity: configuration.usersQueueCapacity, clock: clock)
  }
}
