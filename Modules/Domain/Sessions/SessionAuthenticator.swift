import Foundation
import Networking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The chat backend's side of token refresh, for `TokenRefreshInterceptor` (REQUIREMENTS A4, A5): a bearer access
/// token, refreshed with the refresh token when the server answers `E05` or shortly before it expires.
struct SessionAuthenticator: Authenticator {
  /// The chat backend that refreshes tokens; `nil` when none is configured.
  let baseURL: URL?
  /// A client without the refresh interceptor: the refresh must not wait for itself.
  let auth: HTTPClient
  /// This device's time, against which ``Credentials/expiresAt`` is read.
  let now: @Sendable () -> Date
  /// Called with every refreshed credential before the interceptor uses it, so that it reaches the secure store and
  /// a restart starts with the newest access token.
  let didRefresh: @Sendable (Credentials) -> Void

  /// How long before expiry a token is refreshed ahead of use, at most: 30 seconds, or a quarter of the token's
  /// lifetime when that is shorter, so that a short-lived token is not refreshed on every use.
  static let refreshMargin: TimeInterval = 30

  func apply(_ credential: Credentials, to request: inout URLRequest) {
    request.setValue("Bearer \(credential.accessToken)", forHTTPHeaderField: "Authorization")
  }

  func refresh(_ credential: Credentials) async throws -> Credentials {
    guard let baseURL else {
      throw NetworkError(.invalidRequest, KeelConfiguration.noBackend(for: "refresh the session"))
    }
    let response = try await auth.send(
      APIRequest<RefreshResponse>.json(AuthRouter(.refresh(refreshToken: credential.refreshToken), baseURL: baseURL)))
    let fresh = credential.refreshed(accessToken: response.accessToken, expiresIn: response.expiresIn, now: now())
    didRefresh(fresh)
    return fresh
  }

  /// `E05` only: the access token expired, which a refresh cures. `E02` (the server does not recognise the token at
  /// all) is not an expiry: a refresh would hide whatever produced a bad token, so it reaches the caller as it is and
  /// the session stays; signing out and in again recovers. Any other 401 (another service's, `E03`, `E06`) is not
  /// this session's expiry either.
  func isAuthenticationFailure(_ failure: NetworkError) -> Bool {
    failure.serverError?.code == "E05"
  }

  func isRequest(_ request: URLRequest, authenticatedWith credential: Credentials) -> Bool {
    request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.accessToken)"
  }

  func requiresRefresh(_ credential: Credentials) -> Bool {
    let lifetime = credential.expiresAt.timeIntervalSince(credential.issuedAt)
    let margin = min(Self.refreshMargin, max(0, lifetime) / 4)
    return now() >= credential.expiresAt.addingTimeInterval(-margin)
  }

  /// Every endpoint of the backend but the auth routes that must go without the session's token (sign-in, refresh)
  /// or carry their own (sign-out). An endpoint of another server (another scheme, host or port) never gets the
  /// token: a call through ``SessionManager/client`` to a third party must not hand it the session.
  func requiresCredential(_ endpoint: any Endpoint) -> Bool {
    guard let baseURL, Self.sameOrigin(endpoint.baseURL, baseURL) else { return false }
    return (endpoint as? AuthRouter)?.requiresSessionCredential ?? true
  }

  /// Whether `one` and `other` share scheme, host and port (the default port of the scheme when none is given).
  static func sameOrigin(_ one: URL, _ other: URL) -> Bool {
    func origin(_ url: URL) -> (String, String, Int?) {
      let scheme = url.scheme?.lowercased() ?? ""
      return (scheme, url.host?.lowercased() ?? "", url.port ?? ["http": 80, "https": 443][scheme])
    }
    return origin(one) == origin(other)
  }
}
