import Foundation
import KeelConcurrency
import KeelErrors
import Logging
import Networking
import Persistence

/// Signs in and out of the chat backend, keeps the tokens in a `SecureStore`, keeps them fresh, and tells any number
/// of observers where the session stands (REQUIREMENTS A4, A5, A6).
///
/// ```swift
/// import Foundation
/// import Logging
/// import Networking
/// import Persistence
///
/// let secrets = try EncryptedFileSecureStore(directory: URL(fileURLWithPath: "myapp-data/secure"))  // or the Keychain
/// let sessions = SessionManager(
///   baseURL: URL(string: "https://chat.example.com")!, transport: URLSessionTransport(), secureStore: secrets,
///   clock: ContinuousClock(), now: { Date() }, logger: Logger(label: "sessions"))
/// Task { for await state in sessions.states() { print(state) } }
/// let user = try await sessions.login(email: "demo@keel.dev", password: "demo-password")
/// let again = try await sessions.me()          // any call on `sessions.client` carries the token
/// try await sessions.logout()
/// ```
///
/// - A session survives a restart: a manager made on the same secure store starts signed in as the same user.
/// - Calls on ``client`` carry the access token. When the server answers `E05` (expired), the token is refreshed once
///   however many calls failed, they are sent again, and the new token is written to the secure store.
/// - When the refresh token is refused (`E06`), the tokens are wiped and ``SessionState/expired`` is published once.
public final class SessionManager: Sendable {
  /// The secure-store key the session's ``Credentials`` are kept under, as JSON.
  public static let storageKey = "keel.session"

  /// The chat backend: sign-in, refresh, sign-out and `/v1/me`; `nil` when none is configured, and then every call
  /// that would reach it fails with `SessionError.Kind.notConfigured` before anything is sent.
  public let baseURL: URL?
  /// The client for authenticated calls: every request carries the session's access token, refreshed as needed.
  /// Without a session, its requests fail with `NetworkError`'s `sessionExpired` kind and are not sent.
  public let client: HTTPClient

  /// Sign-in, refresh and sign-out: a client without the refresh interceptor, which must not wait for itself.
  let auth: HTTPClient
  let interceptor: TokenRefreshInterceptor<SessionAuthenticator>
  let broadcast: SessionStateBroadcast
  let secureStore: any SecureStore
  let now: @Sendable () -> Date
  let logger: Logger
  /// The live session, `nil` when there is none. Every change of session happens under this lock together with the
  /// secure store, the interceptor's credential and the published state, so that they never disagree.
  let session: Locked<Credentials?>

  /// A manager that starts signed in if `secureStore` holds a session, signed out otherwise.
  ///
  /// - Parameters:
  ///   - baseURL: The chat backend, for example the Sandbox's `http://127.0.0.1:PORT`; `nil` when the app has none.
  ///   - transport: How requests travel.
  ///   - secureStore: Where the tokens are kept, under ``storageKey``.
  ///   - clock: The clock of retry delays and of the refresh loop guard.
  ///   - now: This device's time, against which access tokens expire.
  ///   - logger: Where sign-in, sign-out, refreshes and every request are logged; tokens and passwords never are.
  public init(
    baseURL: URL?,
    transport: any HTTPTransport,
    secureStore: any SecureStore,
    clock: any Clock<Duration>,
    now: @escaping @Sendable () -> Date,
    logger: Logger
  ) {
    // The authenticator and the interceptor report to this manager, which does not exist yet.
    let link = WeakLink<SessionManager>()
    let auth = HTTPClient(
      transport: transport, serverErrorDecoders: [.chatBackend, .sendbird], clock: clock, logger: logger)
    let stored = Self.restore(from: secureStore, logger: logger)
    let authenticator = SessionAuthenticator(baseURL: baseURL, auth: auth, now: now) { link.object?.didRefresh($0) }
    let interceptor = TokenRefreshInterceptor(
      authenticator: authenticator, credential: stored, clock: clock, logger: logger
    ) { link.object?.sessionDidExpire($0) }
    self.baseURL = baseURL
    self.auth = auth
    self.interceptor = interceptor
    client = HTTPClient(
      transport: transport, interceptors: [interceptor], serverErrorDecoders: [.chatBackend, .sendbird],
      clock: clock, logger: logger)
    self.secureStore = secureStore
    self.now = now
    self.logger = logger
    session = Locked(stored)
    broadcast = SessionStateBroadcast(stored.map { .loggedIn($0.user) } ?? .loggedOut)
    link.connect(self)
  }

  deinit { broadcast.finish() }

  /// Where the session stands now.
  public var state: SessionState { broadcast.current }

  /// The signed-in user, or `nil` when nobody is.
  public var currentUser: SessionUser? {
    guard case .loggedIn(let user) = state else { return nil }
    return user
  }

  /// A stream of the session's state: the current state first, then every change. Any number of streams may be
  /// open; a stream ends when the manager goes away, and stops being fed when its consumer stops listening.
  public func states() -> AsyncStream<SessionState> { broadcast.updates() }

  /// The signed-in user as the server sees them (`GET /v1/me`): an authenticated call through ``client``.
  ///
  /// - Throws: `SessionError.Kind.requestFailed`, with the kind `RequestFailure.Kind.sessionExpired` when
  ///   there is no session or it ended; `CancellationError` when the calling task is cancelled.
  public func me() async throws -> SessionUser {
    let baseURL = try configuredBackend(for: "ask who is signed in")
    return try await RequestFailure.wrapping(SessionError.requestFailed) {
      try await client.send(.json(AuthRouter(.me, baseURL: baseURL)))
    }
  }

  /// The access token to prove the session with outside ``client``, as a socket's CONNECT does: refreshed first when
  /// it is about to expire, as a request's would be.
  ///
  /// - Throws: `SessionError.Kind.requestFailed`, with the kind `RequestFailure.Kind.sessionExpired` when
  ///   there is no session or it ended; `CancellationError` when the calling task is cancelled.
  public func accessToken() async throws -> String {
    try await RequestFailure.wrapping(SessionError.requestFailed) {
      try await interceptor.validCredential().accessToken
    }
  }

  /// An access token in place of `rejected`, which a server refused as expired outside ``client`` (a socket's
  /// CONNECT): the session's newer one if it already has one, otherwise a refreshed one, and one refresh however many
  /// connections ask at once.
  ///
  /// - Throws: as ``accessToken()``.
  public func accessToken(replacing rejected: String) async throws -> String {
    try await RequestFailure.wrapping(SessionError.requestFailed) {
      guard let current = interceptor.credential else { return try await interceptor.validCredential().accessToken }
      guard current.accessToken == rejected else { return current.accessToken }
      return try await interceptor.credential(replacing: current).accessToken
    }
  }

  /// The chat backend, or `SessionError.Kind.notConfigured` saying that `what` needs one.
  func configuredBackend(for what: String) throws -> URL {
    guard let baseURL else {
      throw SessionError(.notConfigured, KeelConfiguration.noBackend(for: what))
    }
    return baseURL
  }

  private static func restore(from store: any SecureStore, logger: Logger) -> Credentials? {
    do {
      return try store.value(Credentials.self, forKey: storageKey)
    } catch let error as PersistenceError where error.kind == .decoding {
      // Not the error itself: a decoding error may quote what it could not read.
      logger.warning("The stored session cannot be read, so it is discarded; sign in again.")
      do { try store.removeData(forKey: storageKey) } catch {
        logger.error("The unreadable stored session cannot be removed: \(error)")
      }
      return nil
    } catch {
      logger.error("The secure store cannot be read, so the session starts signed out: \(error)")
      return nil
    }
  }
}

// MARK: - What the interceptor reports

extension SessionManager {
  /// Keeps a refreshed access token, unless its session ended or was replaced while the refresh ran.
  fileprivate func didRefresh(_ fresh: Credentials) {
    let failure: (any Error)? = session.withLock { current in
      guard let kept = current, kept.refreshToken == fresh.refreshToken else { return nil }
      // The interceptor's copy of the user is the one from the sign-in; a changed profile is the session's.
      var fresh = fresh
      fresh.user = kept.user
      current = fresh
      do {
        try secureStore.set(fresh, forKey: Self.storageKey)
        return nil
      } catch {
        return error
      }
    }
    if let failure {
      logger.warning(
        "The refreshed access token cannot be saved (\(failure)); after a restart the session refreshes again.")
    }
  }

  /// Wipes the session the interceptor could not refresh and publishes ``SessionState/expired``, once.
  fileprivate func sessionDidExpire(_ error: NetworkError) {
    let (ended, failure) = session.withLock { current -> (Bool, (any Error)?) in
      // A sign-in after the interceptor decided has set a credential: this report is about the session before it.
      guard current != nil, interceptor.credential == nil else { return (false, nil) }
      current = nil
      var failure: (any Error)?
      do { try secureStore.removeData(forKey: Self.storageKey) } catch { failure = error }
      broadcast.publish(.expired)
      return (true, failure)
    }
    guard ended else { return }
    logger.info("The session expired and its tokens were wiped; the user must sign in again.")
    if let failure { logger.error("The expired session's tokens cannot be removed from the secure store: \(failure)") }
  }
}
