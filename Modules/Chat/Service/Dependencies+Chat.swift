import Domain
import Foundation

extension ChatConfiguration: ProductConfiguration {
  /// The defaults every property describes.
  public init() { self.init(pageSize: 50) }
}

extension ChatService: ProductService {}

extension KeelConfiguration {
  /// The chat's pages, catch-up bound, store size and retries.
  public var chat: ChatConfiguration {
    get { self[product: ChatConfiguration.self] }
    set { self[product: ChatConfiguration.self] = newValue }
  }
}

extension Dependencies {
  /// The chat (C1–C6) on the backend at `KeelConfiguration.backendBaseURL`, signed in with `sessions`: built on
  /// first use, when its outbox starts sending what an earlier run left, and stopped by `shutDown()`. Each account's
  /// store and outbox are kept in a directory of its own in the data directory's `chat` folder, the last workspace in
  /// `settings.json`.
  ///
  /// - Throws: ``ChatError`` of kind `ChatError.Kind.notConfigured` when there is no backend, or
  ///   `ChatError.Kind.storage` when no directory can hold its store. The next use tries again.
  public var chat: ChatService {
    get throws {
      try product(ChatService.self) { dependencies in
        let (configuration, environment) = (dependencies.configuration, dependencies.environment)
        guard let baseURL = configuration.backendBaseURL else {
          throw ChatError(.notConfigured, KeelConfiguration.noBackend(for: "use the chat"))
        }
        let directory: URL
        do {
          directory = try dependencies.folder("chat")
        } catch {
          throw ChatError.storage(error, doing: "find a directory for the chat's store")
        }
        return try ChatService(
          baseURL: baseURL, sessions: dependencies.sessions, socketTransport: environment.webSocket,
          directory: directory, settings: environment.settings, networkMonitor: environment.monitor,
          configuration: configuration.chat, clock: environment.clock, now: environment.now,
          logger: environment.logger)
      }
    }
  }
}
