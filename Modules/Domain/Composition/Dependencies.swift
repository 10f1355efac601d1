import Foundation
import Logging
import Networking
import Persistence
import RateLimiting

/// The composition root: every service, built once with its collaborators (REQUIREMENTS A2, A6).
///
/// ``live(configuration:)`` is the only place where Keel chooses concrete collaborators: the URLSession transport,
/// the settings file, the Keychain (Apple platforms) or an encrypted owner-only file (elsewhere) for tokens, the
/// continuous clock. ``wired(configuration:environment:)`` builds the same graph around any ``Environment``, which is
/// how tests run it on fakes. No singletons, no globals, no service locator: each service receives what it uses
/// through its initializer.
///
/// Each service is built the first time it is asked for, then shared: an app that only manages users opens neither
/// the token store's session nor the image cache. Build one `Dependencies` per process and data directory: the image
/// cache's directory has one owner at a time.
///
/// ```swift
/// let dependencies = Dependencies.live(configuration: KeelConfiguration())
/// try dependencies.users.initApplication(applicationId: appID, apiToken: token)
/// let avatar = try await dependencies.images.data(for: avatarURL)
/// ```
public final class Dependencies: Sendable {
  /// The configuration the services are built from.
  public let configuration: KeelConfiguration
  /// The collaborators the services are built around.
  public let environment: Environment

  private let usersService: Lazy<UserManager>
  private let sessionsService: Lazy<SessionManager>
  private let imagesService: Lazy<ImageLoader>

  private init(configuration: KeelConfiguration, environment: Environment) {
    self.configuration = configuration
    self.environment = environment
    usersService = Lazy { Self.makeUsers(configuration, environment) }
    sessionsService = Lazy { Self.makeSessions(configuration, environment) }
    imagesService = Lazy { Self.makeImages(configuration, environment) }
  }

  /// The user manager (U1–U13).
  public var users: UserManager { usersService.value }
  /// Sign-in, tokens and the authenticated client of the chat backend (A4–A6).
  public var sessions: SessionManager { sessionsService.value }
  /// The image loader (A8).
  public var images: ImageLoader { imagesService.value }
  /// The logger every service logs through.
  public var logger: Logger { environment.logger }

  /// Every service, built for the real world from `configuration`.
  ///
  /// Files go under the configuration's data directory. If it cannot be created, the failure is logged at `error`
  /// and the stores are kept in memory for this run, so that the app still works.
  public static func live(configuration: KeelConfiguration) -> Dependencies {
    var logger = Logger(label: "keel")
    logger.logLevel = configuration.logLevel
    let directory = configuration.resolvedDataDirectory
    let stores: (settings: any KeyValueStore, secureStore: any SecureStore, directory: URL?)
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      stores = (
        try FileKeyValueStore(url: directory.appendingPathComponent("settings.json")),
        try Self.liveSecureStore(in: directory), directory
      )
    } catch {
      logger.error("\(directory.path) cannot hold Keel's files; they are kept in memory for this run: \(error)")
      stores = (InMemoryKeyValueStore(), InMemorySecureStore(), nil)
    }
    let environment = Environment(
      transport: URLSessionTransport(), settings: stores.settings, secureStore: stores.secureStore,
      dataDirectory: stores.directory,
      clock: ContinuousClock(), now: { Date() }, logger: logger)
    return wired(configuration: configuration, environment: environment)
  }

  /// Every service, built from `configuration` around the collaborators in `environment`.
  public static func wired(configuration: KeelConfiguration, environment: Environment) -> Dependencies {
    Dependencies(configuration: configuration, environment: environment)
  }

  private static func liveSecureStore(in directory: URL) throws -> any SecureStore {
    #if canImport(Security)
      KeychainSecureStore(service: "dev.keel")
    #else
      try EncryptedFileSecureStore(directory: directory.appendingPathComponent("secure", isDirectory: true))
    #endif
  }
}
