import Foundation
import Logging
import Networking
import Persistence

extension Dependencies {
  /// The collaborators the services are built around: what ``Dependencies/live(configuration:)`` chooses for the
  /// real world, and what tests replace with fakes.
  public struct Environment: Sendable {
    /// How every request travels.
    public var transport: any HTTPTransport
    /// Whether the device is online: the event tracker waits while it is not (E6).
    public var monitor: any NetworkMonitor
    /// Where the session's tokens are kept (A6).
    public var secureStore: any SecureStore
    /// Where the user cache (`users.json`), the event queue (`events.sqlite`) and the image cache (`images/`) are
    /// kept; `nil` keeps the user cache in memory, and the event queue and image cache in a fresh temporary
    /// directory.
    public var dataDirectory: URL?
    /// The clock every limiter, retry and refresh guard is measured on.
    public var clock: any Clock<Duration>
    /// This device's wall-clock time: token expiry and image freshness.
    public var now: @Sendable () -> Date
    /// Where every service logs.
    public var logger: Logger
    /// What the chat's socket connects through.
    public var webSocket: any WebSocketTransport
    /// Where the chat keeps its last workspace and the profile; `nil` keeps them for no longer than the service.
    public var settings: (any KeyValueStore)?

    /// An environment of the given collaborators: what tests pass to ``Dependencies/wired(configuration:environment:)``.
    public init(
      transport: any HTTPTransport, monitor: any NetworkMonitor, secureStore: any SecureStore, dataDirectory: URL?,
      clock: any Clock<Duration>, now: @escaping @Sendable () -> Date, logger: Logger,
      webSocket: any WebSocketTransport = URLSessionWebSocketTransport(), settings: (any KeyValueStore)? = nil
    ) {
      self.transport = transport
      self.monitor = monitor
      self.secureStore = secureStore
      self.dataDirectory = dataDirectory
      self.clock = clock
      self.now = now
      self.logger = logger
      self.webSocket = webSocket
      self.settings = settings
    }
  }
}
