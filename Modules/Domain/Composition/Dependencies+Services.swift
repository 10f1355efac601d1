import Foundation
import KeelErrors
import Logging
import Networking
import Persistence
import RateLimiting

extension Dependencies {
  static func makeUsers(_ configuration: KeelConfiguration, _ environment: Environment) -> UserManager {
    UserManager(
      transport: environment.transport, limiters: usersLimiters(configuration, clock: environment.clock),
      store: UserStore(
        file: environment.dataDirectory?.appendingPathComponent("users.json"), logger: environment.logger),
      baseURL: configuration.sendbirdBaseURL, clock: environment.clock,
      logger: environment.logger)
  }

  static func makeSessions(_ configuration: KeelConfiguration, _ environment: Environment) -> SessionManager {
    SessionManager(
      baseURL: configuration.backendBaseURL, transport: environment.transport, secureStore: environment.secureStore,
      clock: environment.clock, now: environment.now, logger: environment.logger)
  }

  static func makeImages(
    _ configuration: KeelConfiguration, _ environment: Environment, scratch: ScratchDirectory
  ) throws -> ImageLoader {
    let client = HTTPClient(
      transport: environment.transport, interceptors: [RetryPolicy()], serverErrorDecoders: [.chatBackend, .sendbird],
      clock: environment.clock, logger: environment.logger)
    let cache: HybridCache<CachedImage>
    do {
      cache = try ImageLoader.makeCache(
        directory: environment.dataDirectory?.appendingPathComponent("images", isDirectory: true)
          ?? scratch.folder("images"),
        limits: configuration.imageCache, now: environment.now)
    } catch let error as ImageLoaderError {
      throw error
    } catch {
      environment.logger.error(
        "The image cache cannot use its directory; a temporary one, removed at the end, stands in: \(error)")
      cache = try ImageLoader.makeCache(
        directory: scratch.folder("images"), limits: configuration.imageCache, now: environment.now)
    }
    return ImageLoader(
      client: client, cache: cache, defaultMaxAge: configuration.imageCache.defaultMaxAge, now: environment.now,
      logger: environment.logger)
  }

  static func makeEvents(
    _ configuration: KeelConfiguration, _ environment: Environment, scratch: ScratchDirectory
  ) throws -> EventTracker {
    guard let apiToken = configuration.eventsAPIToken else {
      throw EventTrackerError(.invalidConfiguration, "Event tracking needs KeelConfiguration.eventsAPIToken.")
    }
    guard let baseURL = configuration.eventsBaseURL ?? configuration.backendBaseURL else {
      throw EventTrackerError(
        .invalidConfiguration,
        "Cannot track events: no backend is configured to deliver them to (KeelConfiguration.backendBaseURL or "
          + "eventsBaseURL).")
    }
    let queueURL: URL
    do {
      queueURL =
        try environment.dataDirectory?.appendingPathComponent("events.sqlite")
        ?? scratch.folder("events").appendingPathComponent("events.sqlite")
    } catch {
      throw EventTrackerError(.storage, "No directory can hold the event queue: \("\(error)".clause).")
    }
    return try EventTracker(
      baseURL: baseURL, apiToken: apiToken, queueURL: queueURL,
      settings: eventsSettings(environment, besides: queueURL), transport: environment.transport,
      monitor: environment.monitor, configuration: configuration.events, clock: environment.clock,
      now: environment.now, logger: environment.logger, plugins: configuration.eventPlugins)
  }

  /// The configuration's limiters; else, on the continuous clock, the ones the process shares, so that every user
  /// manager of an application takes its turns from one limiter (L1); on any other clock (tests), a set of their own.
  private static func usersLimiters(
    _ configuration: KeelConfiguration, clock: any Clock<Duration>
  ) -> UserManagerLimiters {
    if let limiters = configuration.usersLimiters { return limiters }
    if clock is ContinuousClock {
      return .shared(rate: configuration.usersRate, queueCapacity: configuration.usersQueueCapacity)
    }
    return UserManagerLimiters(
      rate: configuration.usersRate, queueCapacity: configuration.usersQueueCapacity, clock: clock)
  }
}
