import Foundation
import KeelConcurrency
import KeelErrors
import Logging

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Puts the credential on every request and keeps it fresh (REQUIREMENTS A4, A5).
///
/// - One refresh at a time: however many requests fail together, they wait for the same refresh and are sent again
///   with its credential. A request that failed with an older credential is sent again at once, without a refresh.
/// - A credential that ``Authenticator/requiresRefresh(_:)`` is refreshed before it is used, and requests wait for a
///   refresh in flight rather than go out with a credential about to be replaced.
/// - A request is sent at most ``maxAttemptsPerRequest`` times for authentication's sake (retries that other
///   interceptors decide, such as ``RetryPolicy``'s, count separately).
/// - Loop guard: at most ``maxRefreshes`` successful refreshes within ``refreshWindow``; a server that keeps refusing
///   fresh credentials past that ends the session. Refreshes that fail in passing (offline, a 503) do not count.
/// - When a refresh fails in a way that ends the session, the credential is cleared, every waiting request fails with
///   `NetworkError.Kind.sessionExpired`, so does every later one until ``setCredential(_:)``, and `onSessionExpired`
///   is called once.
///
/// ```swift
/// @MainActor func showSignIn() { print("Signed out: sign in again.") }
///
/// // A client whose requests carry the credential, for any authenticator (such as Authenticator's example).
/// func authenticatedClient<A: Authenticator>(_ authenticator: A, credential: A.Credential?) -> HTTPClient {
///   let session = TokenRefreshInterceptor(authenticator: authenticator, credential: credential) { _ in
///     Task { @MainActor in showSignIn() }
///   }
///   return HTTPClient(interceptors: [session, RetryPolicy()])
/// }
/// ```
public final class TokenRefreshInterceptor<A: Authenticator>: RequestInterceptor {
  /// What applies the credential, refreshes it and recognises a failure a refresh cures.
  public let authenticator: A
  /// The most times one request is sent when the server keeps refusing its credential; 3 by default.
  public let maxAttemptsPerRequest: Int
  /// The most successful refreshes within ``refreshWindow``; 5 by default.
  public let maxRefreshes: Int
  /// The window of the loop guard; 30 seconds by default.
  public let refreshWindow: Duration

  let now: @Sendable () -> Duration
  let logger: Logger
  let onSessionExpired: @Sendable (NetworkError) -> Void
  let state: Locked<State>

  /// An interceptor that applies `credential` to every request and refreshes it, once for all waiting requests.
  ///
  /// - Parameters:
  ///   - authenticator: Applies, refreshes and reads the credential.
  ///   - credential: The credential to start with; `nil` until ``setCredential(_:)`` (requests needing one fail with
  ///     `NetworkError.Kind.sessionExpired` until then).
  ///   - maxAttemptsPerRequest: The most times one request is sent when its credential is refused.
  ///   - maxRefreshes: The loop guard's number of refreshes …
  ///   - refreshWindow: … within this window.
  ///   - clock: The clock of the loop guard.
  ///   - logger: Where refreshes and the end of the session are logged.
  ///   - onSessionExpired: Called once when the session ends, with the error the waiting requests fail with.
  public init(
    authenticator: A,
    credential: A.Credential?,
    maxAttemptsPerRequest: Int = 3,
    maxRefreshes: Int = 5,
    refreshWindow: Duration = .seconds(30),
    clock: any Clock<Duration> = ContinuousClock(),
    logger: Logger = Logger(label: "keel.networking.auth", factory: { _ in SwiftLogNoOpLogHandler() }),
    onSessionExpired: @escaping @Sendable (NetworkError) -> Void = { _ in }
  ) {
    self.authenticator = authenticator
    self.maxAttemptsPerRequest = maxAttemptsPerRequest
    self.maxRefreshes = maxRefreshes
    self.refreshWindow = refreshWindow
    self.logger = logger
    self.onSessionExpired = onSessionExpired
    now = Self.stopwatch(clock)
    state = Locked(State(credential: credential))
  }

  private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
    let origin = clock.now
    return { origin.duration(to: clock.now) }
  }

  /// The current credential; `nil` before sign-in and after the session ended.
  public var credential: A.Credential? { state.withLock { $0.credential } }

  /// Starts a session with `credential` (after sign-in): later requests carry it, and the end of this session will
  /// be reported again. Requests waiting for a refresh of an earlier credential go on at once with this one; that
  /// refresh's result is ignored when it ends.
  public func setCredential(_ credential: A.Credential) {
    replaceCredential(with: credential)
  }

  /// Ends the session without reporting it (after sign-out): requests needing a credential fail until
  /// ``setCredential(_:)``, and so do requests waiting for a refresh.
  public func clearCredential() {
    replaceCredential(with: nil)
  }

  private func replaceCredential(with credential: A.Credential?) {
    let waiters = state.withLock { state in
      state.credential = credential
      state.generation += 1
      state.ending = nil
      state.refreshStarts = []
      defer { state.refresh = nil }
      return state.refresh?.waiters.values.map { $0 } ?? []
    }
    let answer: Outcome = credential.map(Outcome.success) ?? .failure(noCredential())
    for waiter in waiters { waiter.resume(returning: answer) }
  }

  /// Applies the credential, after refreshing it first if it requires it or a refresh is already in flight.
  ///
  /// - Throws: `NetworkError.Kind.sessionExpired` when there is no credential or the refresh ends the session; a
  ///   passing refresh failure as it is.
  public func adapt(_ request: inout URLRequest, context: RequestContext) async throws {
    guard authenticator.requiresCredential(context.endpoint) else { return }
    authenticator.apply(try await validCredential(), to: &request)
  }

  /// The credential a request would carry now: refreshed first if it requires it or a refresh is in flight. For a
  /// connection that proves who it is outside an HTTP request, such as a socket's CONNECT.
  ///
  /// - Throws: `NetworkError.Kind.sessionExpired` when there is no credential or the refresh ends the session; a
  ///   passing refresh failure as it is; `CancellationError` when the calling task is cancelled.
  public func validCredential() async throws -> A.Credential {
    let (current, generation, refreshing, ending) = state.withLock {
      ($0.credential, $0.generation, $0.refresh != nil, $0.ending)
    }
    guard let credential = current else { throw ending ?? noCredential() }
    guard refreshing || authenticator.requiresRefresh(credential) else { return credential }
    return try await refreshed(from: generation).get()
  }

  /// A credential in place of `rejected`, which a server refused outside HTTP (a socket's CONNECT answered that the
  /// token expired): the current one if `rejected` was already replaced, otherwise the one refresh (in flight, or
  /// started now) makes. The loop guard counts it like any refresh.
  ///
  /// - Throws: as ``validCredential()``.
  public func credential(replacing rejected: A.Credential) async throws -> A.Credential
  where A.Credential: Equatable {
    let (current, generation, ending) = state.withLock { ($0.credential, $0.generation, $0.ending) }
    guard let credential = current else { throw ending ?? noCredential() }
    guard credential == rejected else { return credential }
    return try await refreshed(from: generation).get()
  }

  /// Sends the request again after an authentication failure: at once if it carried an older credential, after the
  /// one refresh in flight (starting it if there is none) if it carried the current one.
  public func retry(after failure: NetworkError, context: RequestContext) async -> RetryDecision {
    guard authenticator.requiresCredential(context.endpoint), let sent = context.request,
      authenticator.isAuthenticationFailure(failure), context.ownRetries < maxAttemptsPerRequest - 1
    else { return .doNotRetry }
    let (current, generation, refreshing, ending) = state.withLock {
      ($0.credential, $0.generation, $0.refresh != nil, $0.ending)
    }
    guard let credential = current else { return .fail(ending ?? noCredential()) }
    if !refreshing && !authenticator.isRequest(sent, authenticatedWith: credential) { return .retry }
    switch await refreshed(from: generation) {
    case .success: return .retry
    case .failure(let error as NetworkError): return .fail(error)
    // Cancelled while waiting: the client sees the cancellation and throws `CancellationError`.
    case .failure: return .doNotRetry
    }
  }

  func noCredential() -> NetworkError {
    NetworkError(.sessionExpired, "Not signed in: there is no credential to send. Sign in again.")
  }
}
