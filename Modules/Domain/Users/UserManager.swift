import Foundation
import KeelConcurrency
import Logging
import Networking
import RateLimiting

/// Creates, updates and finds the users of one Sendbird application, with a cache in front (REQUIREMENTS U2–U8,
/// U10, U11, U13).
///
/// - Every input is checked before anything is sent (U13): a bad one is a ``UserManagerError`` of kind
///   `UserManagerError.Kind.validation`.
/// - Every request, retries included, passes its application's rate limiter first (U8). With the user-manager
///   policy, `LeakyBucket.userManager`, at most one request per second leaves, at most 10 wait in line, and the next
///   one fails at once, never sent, with a ``UserManagerError`` whose ``UserManagerError/requestFailure`` has the
///   kind `RequestFailure.Kind.rateLimited`. Managers given the same ``UserManagerLimiters`` share one limiter
///   per application (L1).
/// - A user is cached only after the server accepted it (U3, U5), and the cache is read first by ``getUser(userId:)``
///   (U6).
///
/// ```swift
/// import Foundation
/// import Networking
/// import RateLimiting
///
/// let manager = UserManager(
///   transport: URLSessionTransport(), limiters: .shared(),
///   store: UserStore(file: URL(fileURLWithPath: "myapp-data/users.json")), clock: ContinuousClock())
/// try manager.initApplication(applicationId: "A1B2C3D4-E5F6-7890", apiToken: "your-api-token")
/// let alice = try await manager.createUser(params: UserCreationParams(userId: "alice", nickname: "Alice"))
/// ```
public final class UserManager: Sendable {
  /// The user cache.
  public let store: UserStore

  /// The limiters every request passes, one per application.
  public let limiters: UserManagerLimiters

  private let client: HTTPClient
  private let baseURL: URL?
  private let logger: Logger
  private let current = Locked<SendbirdApplication?>(nil)

  /// A user manager whose requests take their turns from `limiters`, one limiter per application.
  ///
  /// - Parameters:
  ///   - transport: How requests travel.
  ///   - limiters: What every request passes first (U8, L1): ``UserManagerLimiters/shared(rate:queueCapacity:)``
  ///     shares Sendbird's policy with every other manager of the process.
  ///   - store: The user cache; it remembers which application its users belong to, across restarts when it is
  ///     kept in a file (U2).
  ///   - baseURL: The Platform API for every application; `nil` means Sendbird's, `https://api-{applicationId}.sendbird.com`.
  ///   - retryPolicy: Which failed requests are retried, and when; `nil` retries none.
  ///   - clock: The clock retry delays are measured on.
  ///   - logger: Where requests and responses are logged, at `debug`, with secrets redacted (U11).
  public init(
    transport: any HTTPTransport, limiters: UserManagerLimiters, store: UserStore, baseURL: URL? = nil,
    retryPolicy: RetryPolicy? = RetryPolicy(), clock: any Clock<Duration>,
    logger: Logger = Logger(label: "keel.users", factory: { _ in SwiftLogNoOpLogHandler() })
  ) {
    let interceptors: [any RequestInterceptor] =
      [UsersRateLimit(limiters: limiters)] + (retryPolicy.map { [$0] } ?? [])
    client = HTTPClient(
      transport: transport, interceptors: interceptors, serverErrorDecoders: [.sendbird], clock: clock, logger: logger)
    self.limiters = limiters
    self.store = store
    self.baseURL = baseURL
    self.logger = logger
  }

  /// A user manager whose requests, for every application, pass `limiter`.
  ///
  /// - Parameters:
  ///   - limiter: What every request passes first (U8): `LeakyBucket.userManager(clock:)` for Sendbird's policy.
  ///     Sharing it with other managers is up to the caller; ``init(transport:limiters:store:baseURL:retryPolicy:clock:logger:)``
  ///     shares one per application.
  ///   - transport: How requests travel.
  ///   - store: The user cache (U2).
  ///   - baseURL: The Platform API for every application; `nil` means Sendbird's.
  ///   - retryPolicy: Which failed requests are retried, and when; `nil` retries none.
  ///   - clock: The clock retry delays are measured on.
  ///   - logger: Where requests and responses are logged, at `debug`, with secrets redacted (U11).
  public convenience init(
    transport: any HTTPTransport, limiter: any RateLimiter, store: UserStore, baseURL: URL? = nil,
    retryPolicy: RetryPolicy? = RetryPolicy(), clock: any Clock<Duration>,
    logger: Logger = Logger(label: "keel.users", factory: { _ in SwiftLogNoOpLogHandler() })
  ) {
    self.init(
      transport: transport, limiters: UserManagerLimiters { _ in limiter }, store: store, baseURL: baseURL,
      retryPolicy: retryPolicy, clock: clock, logger: logger)
  }

  /// The application the manager talks to, once ``initApplication(applicationId:apiToken:)`` has been called.
  public var application: SendbirdApplication? { current.withLock { $0 } }

  /// Points the manager at an application (U2). If its id differs from the one the cache last belonged to, in this
  /// run or an earlier one, every cached user of the previous application is deleted first.
  ///
  /// Requests of the previous application still in flight are answered, but their users are not cached.
  ///
  /// - Throws: ``UserManagerError`` of kind `UserManagerError.Kind.validation` for an empty id or token, or an id
  ///   that cannot form Sendbird's host name when there is no base URL. The previous application stays in place.
  public func initApplication(applicationId: String, apiToken: String) throws {
    let application = try SendbirdApplication(applicationId: applicationId, apiToken: apiToken, baseURL: baseURL)
    current.withLock { current in
      // Under this lock, so that the cache's owner and the current application always change together.
      if store.claim(for: applicationId) {
        logger.info("Application \(application): the cached users of the previous application were deleted.")
      }
      current = application
    }
  }

  /// Forgets the application: every call fails as not initialized until the next
  /// ``initApplication(applicationId:apiToken:)``. The cache is kept.
  public func resetApplication() {
    current.withLock { $0 = nil }
  }

  /// Creates a user, then caches it (U3).
  ///
  /// - Throws: ``UserManagerError``: `UserManagerError.Kind.validation` or `UserManagerError.Kind.notInitialized`
  ///   before anything is sent; `UserManagerError.Kind.requestFailed` with the ``RequestFailure``: `rateLimited`
  ///   (never sent), `server` with the server's code such as `400202` (the user exists), `transport`, `decoding`.
  ///   `CancellationError` when the calling task is cancelled.
  public func createUser(params: UserCreationParams) async throws -> User {
    try UserValidation.creation(params)
    return try await create(params)
  }

  /// Creates up to 10 users, one request per second through the rate limiter, and returns them in input order (U4).
  ///
  /// Every input is checked before the first is sent; 11 or more, or one bad input, fail the call with nothing sent.
  /// No input is an empty answer.
  ///
  /// - Throws: ``UserManagerError``: `UserManagerError.Kind.validation` or `UserManagerError.Kind.notInitialized`
  ///   with nothing sent; `UserManagerError.Kind.partialFailure` when some creations failed, with the created users
  ///   (cached) and each failed input with its error, both in input order. `CancellationError` when the calling task
  ///   is cancelled: the users created by then are cached, the rest are not sent.
  public func createUsers(params: [UserCreationParams]) async throws -> [User] {
    try UserValidation.batch(params)
    _ = try requireApplication()
    var created: [User] = []
    var failures: [UserCreationFailure] = []
    for (index, item) in params.enumerated() {
      do {
        created.append(try await create(item))
      } catch let error as UserManagerError {
        failures.append(UserCreationFailure(index: index, params: item, error: error))
      }
    }
    guard failures.isEmpty else {
      var error = UserManagerError(
        .partialFailure,
        "\(failures.count) of \(params.count) users were not created: "
          + failures.map(\.description).joined(separator: "; "))
      error.created = created
      error.failures = failures
      throw error
    }
    return created
  }

  /// Updates a user, then caches it (U5).
  ///
  /// - Throws: as ``createUser(params:)``; the server's `400201` when there is no such user.
  public func updateUser(params: UserUpdateParams) async throws -> User {
    try UserValidation.update(params)
    let (user, application) = try await send(.update(params), decode: Self.decodeUser)
    cache([user], for: application)
    return user
  }

  /// The user with id `userId`: from the cache, or else from the server, then cached (U6).
  ///
  /// - Throws: as ``createUser(params:)``; the server's `400201` when there is no such user.
  public func getUser(userId: String) async throws -> User {
    try UserValidation.userId(userId)
    _ = try requireApplication()
    if let cached = store.user(id: userId) { return cached }
    let (user, application) = try await send(.get(userId: userId), decode: Self.decodeUser)
    cache([user], for: application)
    return user
  }

  /// The users whose nickname is exactly `nicknameMatches`, at most 100, then cached (U7).
  ///
  /// - Throws: ``UserManagerError`` of kind `UserManagerError.Kind.validation` for an empty or blank nickname,
  ///   with nothing sent; otherwise as ``createUser(params:)``.
  public func getUsers(nicknameMatches: String) async throws -> [User] {
    try UserValidation.searchNickname(nicknameMatches)
    let (page, application) = try await send(
      .list(nickname: nicknameMatches, limit: UserValidation.searchLimit)
    ) { response in try JSONDecoder().decode(UsersRouter.Page.self, from: response.body) }
    cache(page.users, for: application)
    return page.users
  }

  /// Sends `route` for the current application, through the rate limiter, and decodes its response with `decode`.
  ///
  /// For calls the manager has no method for; nothing is cached. The route's input is checked first, as the
  /// manager's own methods check theirs (U13).
  ///
  /// - Throws: ``UserManagerError`` of kind `UserManagerError.Kind.validation` or
  ///   `UserManagerError.Kind.notInitialized` with nothing sent, or `UserManagerError.Kind.requestFailed`.
  public func send<Response: Sendable>(
    _ route: UsersRouter.Route, decode: @escaping @Sendable (RawResponse) throws -> Response
  ) async throws -> Response {
    try await send(route, decode: decode).response
  }

  private func create(_ params: UserCreationParams) async throws -> User {
    let (user, application) = try await send(.create(params), decode: Self.decodeUser)
    cache([user], for: application)
    return user
  }

  private func send<Response: Sendable>(
    _ route: UsersRouter.Route, decode: @escaping @Sendable (RawResponse) throws -> Response
  ) async throws -> (response: Response, application: SendbirdApplication) {
    try route.validate()
    let application = try requireApplication()
    let endpoint = UsersRouter(route, application: application)
    let response = try await RequestFailure.wrapping(UserManagerError.requestFailed) {
      try await client.send(APIRequest(endpoint, decode: decode))
    }
    return (response, application)
  }

  /// Takes the place in line of a call whose first request is `route`, now, so that calls are admitted in the order
  /// this is called (L1). Checks `route` first, as sending would.
  ///
  /// - Parameter cacheAnswers: Whether a `get` of a cached user is answered from the cache; then no place is taken.
  /// - Throws: as the call would before sending: validation, not initialized, or rate limited (the line is full).
  func enterLine(for route: UsersRouter.Route, cacheAnswers: Bool = false) async throws -> ReservedPlace? {
    try route.validate()
    let application = try requireApplication()
    if cacheAnswers, case .get(let userId) = route, store.user(id: userId) != nil { return nil }
    let router = UsersRouter(route, application: application)
    return try await RequestFailure.wrapping(UserManagerError.requestFailed) {
      do {
        return ReservedPlace(try await limiters.limiter(for: application).reserve(cost: 1))
      } catch let refusal as RateLimitError {
        throw RateLimitInterceptor.error(refusing: router, because: refusal)
      }
    }
  }

  /// Runs `operation` with `place` as its first request's place in line, then gives the place up if no request
  /// took it.
  func run<Value: Sendable>(
    holding place: ReservedPlace?, _ operation: () async throws -> Value
  ) async throws -> Value {
    defer { place?.release() }
    return try await UsersRateLimit.$reserved.withValue(place) { try await operation() }
  }

  private func requireApplication() throws -> SendbirdApplication {
    guard let application = current.withLock({ $0 }) else { throw UserManagerError.notInitialized }
    return application
  }

  /// Caches `users` unless the cache went to another application since their request was sent.
  private func cache(_ users: [User], for application: SendbirdApplication) {
    store.upsert(contentsOf: users, ifOwnedBy: application.applicationId)
  }

  private static let decodeUser: @Sendable (RawResponse) throws -> User = { response in
    try JSONDecoder().decode(User.self, from: response.body)
  }
}
