import Dispatch
import Foundation
import KeelBasics
import Logging

/// The Sendbird-compatible user manager (REQUIREMENTS U12): a thin adapter over ``UserManager`` that calls back
/// instead of returning.
///
/// Every completion handler is called exactly once, on the manager's own serial background queue, one at a time
/// (U9): a caller may block its own thread waiting for a callback. A `nil` handler changes nothing about the call:
/// `createUser(params:completionHandler: nil)` still creates the user.
///
/// Each call runs as a task of its own, so calls made back to back are not promised to reach the rate limiter in the
/// order they were made: make a call that depends on another from that one's completion handler. Each instance has
/// its own rate limiter: use one instance per application (two would together send two requests per second).
///
/// ```swift
/// import Foundation
///
/// let manager = SendbirdUserManager(dataDirectory: URL(fileURLWithPath: "myapp-data", isDirectory: true))
/// manager.initApplication(applicationId: "A1B2C3D4-E5F6-7890", apiToken: "your-api-token")
/// manager.createUser(params: UserCreationParams(userId: "alice", nickname: "Alice")) { result in
///   print(result)        // on a background queue
/// }
/// ```
public final class SendbirdUserManager: SBUserManager {
  /// The manager underneath, for async/await callers.
  public let manager: UserManager
  /// Sends ``SendbirdRequest``s through the manager's rate limiter.
  public let networkClient: any SBNetworkClient
  /// The user cache.
  public let userStorage: any SBUserStorage

  private let callbacks: DispatchQueue
  private let logger: Logger
  private let initFailure = Locked<(any Error)?>(nil)

  /// A manager wired by ``Dependencies/live(configuration:)``.
  ///
  /// - Parameters:
  ///   - baseURL: The Platform API for every application; `nil` means Sendbird's,
  ///     `https://api-{applicationId}.sendbird.com`.
  ///   - dataDirectory: Where the cache and the last application's id are kept; `nil` means the platform's
  ///     application-support location.
  public convenience init(baseURL: URL? = nil, dataDirectory: URL? = nil) {
    let dependencies = Dependencies.live(
      configuration: KeelConfiguration(sendbirdBaseURL: baseURL, dataDirectory: dataDirectory))
    self.init(manager: dependencies.users, logger: dependencies.logger)
  }

  /// An adapter over `manager`.
  public init(
    manager: UserManager, logger: Logger = Logger(label: "keel.users", factory: { _ in SwiftLogNoOpLogHandler() })
  ) {
    self.manager = manager
    self.logger = logger
    callbacks = DispatchQueue(label: "dev.keel.sendbird.callbacks", qos: .userInitiated)
    networkClient = SendbirdNetworkClient(manager: manager, callbackQueue: callbacks)
    userStorage = SendbirdUserStorage(store: manager.store)
  }

  /// Points the manager at an application; see ``UserManager/initApplication(applicationId:apiToken:)``.
  ///
  /// There is no error to return here, so an invalid id or token is logged at `error`, and every call that follows
  /// fails with that validation error until an `initApplication` succeeds: none goes to the previous application by
  /// mistake.
  public func initApplication(applicationId: String, apiToken: String) {
    do {
      try manager.initApplication(applicationId: applicationId, apiToken: apiToken)
      initFailure.withLock { $0 = nil }
    } catch {
      logger.error("initApplication failed: \(error)")
      initFailure.withLock { $0 = error }
      // The network client too must not reach the previous application.
      manager.resetApplication()
    }
  }

  /// Creates a user, then caches it; see ``UserManager/createUser(params:)``.
  public func createUser(params: UserCreationParams, completionHandler: (@Sendable (UserResult) -> Void)?) {
    run(completionHandler) { manager in try await manager.createUser(params: params) }
  }

  /// Creates up to 10 users, one per second; see ``UserManager/createUsers(params:)``.
  public func createUsers(params: [UserCreationParams], completionHandler: (@Sendable (UsersResult) -> Void)?) {
    run(completionHandler) { manager in try await manager.createUsers(params: params) }
  }

  /// Updates a user, then caches it; see ``UserManager/updateUser(params:)``.
  public func updateUser(params: UserUpdateParams, completionHandler: (@Sendable (UserResult) -> Void)?) {
    run(completionHandler) { manager in try await manager.updateUser(params: params) }
  }

  /// The user `userId`, from the cache or the server; see ``UserManager/getUser(userId:)``.
  public func getUser(userId: String, completionHandler: (@Sendable (UserResult) -> Void)?) {
    run(completionHandler) { manager in try await manager.getUser(userId: userId) }
  }

  /// The users named exactly `nicknameMatches`; see ``UserManager/getUsers(nicknameMatches:)``.
  public func getUsers(nicknameMatches: String, completionHandler: (@Sendable (UsersResult) -> Void)?) {
    run(completionHandler) { manager in try await manager.getUsers(nicknameMatches: nicknameMatches) }
  }

  private func run<Value: Sendable>(
    _ completionHandler: (@Sendable (Result<Value, any Error>) -> Void)?,
    _ operation: @escaping @Sendable (UserManager) async throws -> Value
  ) {
    let manager = manager
    let callbacks = callbacks
    let initFailure = initFailure.withLock { $0 }
    Task {
      let result: Result<Value, any Error>
      do {
        if let initFailure { throw initFailure }
        result = .success(try await operation(manager))
      } catch {
        result = .failure(error)
      }
      guard let completionHandler else { return }
      callbacks.async { completionHandler(result) }
    }
  }
}
