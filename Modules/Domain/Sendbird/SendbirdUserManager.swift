import Dispatch
import Foundation
import KeelConcurrency
import Logging

/// The Sendbird-compatible user manager (REQUIREMENTS U12): a thin adapter over ``UserManager`` that calls back
/// instead of returning.
///
/// Every completion handler is called exactly once, on the manager's own serial background queue, one at a time
/// (U9): a caller may block its own thread waiting for a callback. A `nil` handler changes nothing about the call:
/// `createUser(params:completionHandler: nil)` still creates the user.
///
/// Calls take their places in their application's line in the order they are made, so they are admitted in that
/// order, and with 10 waiting the next call made is the one refused (REQUIREMENTS L1); each then runs on its own, so
/// completion handlers may come in another order (a cached user answers at once). Every manager built by
/// ``init(baseURL:dataDirectory:)`` shares one limiter per application with the others of the process: two managers
/// of one application together still send one request a second.
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
  private let line = CallLine()
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
    networkClient = SendbirdNetworkClient(manager: manager, callbackQueue: callbacks, line: line)
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
    run(
      completionHandler, enter: { try await $0.enterLine(for: .create(params)) },
      operation: { try await $0.createUser(params: params) })
  }

  /// Creates up to 10 users, one per second; see ``UserManager/createUsers(params:)``.
  ///
  /// The call's place in line is its first user's; the others queue as they come.
  public func createUsers(params: [UserCreationParams], completionHandler: (@Sendable (UsersResult) -> Void)?) {
    run(
      completionHandler,
      enter: { manager in
        try UserValidation.batch(params)
        guard let first = params.first else { return nil }
        return try await manager.enterLine(for: .create(first))
      },
      operation: { try await $0.createUsers(params: params) })
  }

  /// Updates a user, then caches it; see ``UserManager/updateUser(params:)``.
  public func updateUser(params: UserUpdateParams, completionHandler: (@Sendable (UserResult) -> Void)?) {
    run(
      completionHandler, enter: { try await $0.enterLine(for: .update(params)) },
      operation: { try await $0.updateUser(params: params) })
  }

  /// The user `userId`, from the cache or the server; see ``UserManager/getUser(userId:)``.
  public func getUser(userId: String, completionHandler: (@Sendable (UserResult) -> Void)?) {
    run(
      completionHandler, enter: { try await $0.enterLine(for: .get(userId: userId), cacheAnswers: true) },
      operation: { try await $0.getUser(userId: userId) })
  }

  /// The users named exactly `nicknameMatches`; see ``UserManager/getUsers(nicknameMatches:)``.
  public func getUsers(nicknameMatches: String, completionHandler: (@Sendable (UsersResult) -> Void)?) {
    run(
      completionHandler,
      enter: { manager in
        try UserValidation.searchNickname(nicknameMatches)
        return try await manager.enterLine(for: .list(nickname: nicknameMatches, limit: UserValidation.searchLimit))
      },
      operation: { try await $0.getUsers(nicknameMatches: nicknameMatches) })
  }

  /// Queues the call in ``line``: there `enter` checks it and takes its place, in call order, and then `operation`
  /// runs in a task of its own with that place for its first request.
  private func run<Value: Sendable>(
    _ completionHandler: (@Sendable (Result<Value, any Error>) -> Void)?,
    enter: @escaping @Sendable (UserManager) async throws -> ReservedPlace?,
    operation: @escaping @Sendable (UserManager) async throws -> Value
  ) {
    let manager = manager
    let callbacks = callbacks
    let initFailure = initFailure.withLock { $0 }
    let deliver: @Sendable (Result<Value, any Error>) -> Void = { result in
      guard let completionHandler else { return }
      callbacks.async { completionHandler(result) }
    }
    line.submit {
      let place: ReservedPlace?
      do {
        if let initFailure { throw initFailure }
        place = try await enter(manager)
      } catch {
        return deliver(.failure(error))
      }
      Task {
        do {
          deliver(.success(try await manager.run(holding: place) { try await operation(manager) }))
        } catch {
          deliver(.failure(error))
        }
      }
    }
  }
}
