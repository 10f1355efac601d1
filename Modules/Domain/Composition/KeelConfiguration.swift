import Foundation
import Logging
import Networking
import RateLimiting

/// What an app tells Keel about its backends, its files and its limits; ``Dependencies/live(configuration:)`` builds
/// every service from it.
///
/// ```swift
/// import Foundation
///
/// var configuration = KeelConfiguration()
/// configuration.backendBaseURL = URL(string: "https://chat.example.com")!
/// configuration.dataDirectory = URL(fileURLWithPath: "myapp-data", isDirectory: true)
/// configuration.logLevel = .debug
/// let dependencies = Dependencies.live(configuration: configuration)
/// ```
public struct KeelConfiguration: Sendable {
  /// The Sendbird Platform API for every application; `nil` means Sendbird's own,
  /// `https://api-{applicationId}.sendbird.com`.
  public var sendbirdBaseURL: URL?
  /// The chat backend: sign-in, token refresh, `/v1/me`, and event delivery unless ``eventsBaseURL`` says otherwise.
  /// `nil`, the default, is none: signing in fails with `SessionError`'s `notConfigured` kind and the event tracker
  /// cannot be built, both before anything is sent, rather than a forgotten setting sending to some default host.
  public var backendBaseURL: URL?
  /// Where Keel keeps its files (user cache, tokens, events, images); `nil` means the platform's
  /// application-support location, in a `Keel` folder.
  public var dataDirectory: URL?
  /// The client-side pace of user-manager requests (REQUIREMENTS U8); by default ``UserManager/requestRate``, one
  /// per second.
  public var usersRate: Rate
  /// How many user-manager requests the limiter holds, the one leaving now included; one more fails at once. By
  /// default ``UserManager/queueCapacity``, 10: eleven calls at once are sent over 9 seconds but one, which fails.
  public var usersQueueCapacity: Int
  /// Where user managers take their turns, one limiter per application; `nil`, the default, is the set the process
  /// shares for ``usersRate`` and ``usersQueueCapacity`` (``UserManagerLimiters/shared(rate:queueCapacity:)``), so
  /// that every user manager of one application sends one request a second in all (REQUIREMENTS L1); on an injected
  /// clock other than `ContinuousClock`, a set of the dependencies' own. Pass a store's limiters (PostgreSQL) to share
  /// the limit across processes and machines (L2).
  public var usersLimiters: UserManagerLimiters?
  /// The event ingestion API; `nil` means the backend's, ``backendBaseURL``.
  public var eventsBaseURL: URL?
  /// The token the event tracker sends in `Api-Token`; `nil` leaves event tracking off.
  public var eventsAPIToken: String?
  /// The event tracker's batching, retries and limits.
  public var events: EventTrackerConfiguration
  /// The app's event plugins, run in order on every event after the built-in enrichment (REQUIREMENTS E10).
  public var eventPlugins: [any EventPlugin] = []
  /// The image cache's limits and the freshness of images whose server does not say.
  public var imageCache: ImageCacheLimits
  /// The least severe log level Keel's loggers pass on.
  public var logLevel: Logger.Level
  /// What every service sends its requests through; `nil`, the default, is URLSession. An app passes its own to add
  /// a header its gateway wants, pin certificates or record traffic; on Linux it is still watched by the network
  /// monitor.
  public var transport: (any HTTPTransport)?
  /// What the chat's socket connects through; `nil`, the default, is `URLSessionWebSocketTransport`, the system's
  /// WebSocket on Apple platforms. On Linux, where libcurl has no WebSocket, pass NIOTransports'
  /// `NIOWebSocketTransport`.
  public var webSocketTransport: (any WebSocketTransport)?
  /// The settings of products built above Domain on these dependencies, by type (``subscript(product:)``).
  private var products: [ObjectIdentifier: any ProductConfiguration] = [:]

  /// A configuration; every parameter has the default its property describes.
  public init(
    sendbirdBaseURL: URL? = nil, backendBaseURL: URL? = nil,
    dataDirectory: URL? = nil, usersRate: Rate = UserManager.requestRate,
    usersQueueCapacity: Int = UserManager.queueCapacity, usersLimiters: UserManagerLimiters? = nil,
    eventsBaseURL: URL? = nil, eventsAPIToken: String? = nil, events: EventTrackerConfiguration = .init(),
    imageCache: ImageCacheLimits = ImageCacheLimits(), logLevel: Logger.Level = .info,
    transport: (any HTTPTransport)? = nil, webSocketTransport: (any WebSocketTransport)? = nil
  ) {
    self.sendbirdBaseURL = sendbirdBaseURL
    self.backendBaseURL = backendBaseURL
    self.dataDirectory = dataDirectory
    self.usersRate = usersRate
    self.usersQueueCapacity = usersQueueCapacity
    self.usersLimiters = usersLimiters
    self.eventsBaseURL = eventsBaseURL
    self.eventsAPIToken = eventsAPIToken
    self.events = events
    self.imageCache = imageCache
    self.logLevel = logLevel
    self.transport = transport
    self.webSocketTransport = webSocketTransport
  }

  /// The data directory, or the default one when none is set.
  public var resolvedDataDirectory: URL { dataDirectory ?? DataDirectory.default }

  /// The settings of a product built above Domain (the chat's, `configuration.chat`, are kept here): the ones set,
  /// else the product's defaults. A product names them with a property of its own in an extension.
  public subscript<Configuration: ProductConfiguration>(product type: Configuration.Type) -> Configuration {
    get { products[ObjectIdentifier(type)] as? Configuration ?? Configuration() }
    set { products[ObjectIdentifier(type)] = newValue }
  }
}

extension KeelConfiguration {
  /// What every call that needs the chat backend says when there is none: `Cannot <what>: no chat backend is
  /// configured (KeelConfiguration.backendBaseURL); nothing was sent.`
  package static func noBackend(for what: String) -> String {
    "Cannot \(what): no chat backend is configured (KeelConfiguration.backendBaseURL); nothing was sent."
  }
}

/// The settings of a product built above Domain on ``Dependencies``, kept in ``KeelConfiguration`` with the rest
/// (``KeelConfiguration/subscript(product:)``).
public protocol ProductConfiguration: Sendable {
  /// The product's defaults.
  init()
}
