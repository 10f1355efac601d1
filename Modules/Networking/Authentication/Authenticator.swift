import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The app's side of token refresh: how a credential goes on a request, how it is refreshed, and how to read the
/// server's answers. ``TokenRefreshInterceptor`` does the rest: one refresh at a time, retries, the loop guard and
/// the end of the session (REQUIREMENTS A4, A5).
///
/// ```swift
/// import Foundation
/// #if canImport(FoundationNetworking)
///   import FoundationNetworking
/// #endif
///
/// struct Tokens: Decodable, Sendable {
///   var access: String
///   var refresh: String
/// }
///
/// enum ExampleRouter: Endpoint {
///   case refresh(token: String)
///   var baseURL: URL { URL(string: "https://api.example.com")! }
///   var path: EndpointPath { "/v3/auth/refresh" }
///   var method: HTTPMethod { .post }
///   var body: HTTPBody { switch self { case .refresh(let token): .json(["refresh_token": token]) } }
/// }
///
/// struct BearerAuthenticator: Authenticator {
///   let auth: HTTPClient   // a client without the refresh interceptor
///   func apply(_ credential: Tokens, to request: inout URLRequest) {
///     request.setValue("Bearer \(credential.access)", forHTTPHeaderField: "Authorization")
///   }
///   func refresh(_ credential: Tokens) async throws -> Tokens {
///     try await auth.send(.json(ExampleRouter.refresh(token: credential.refresh)))
///   }
///   func isAuthenticationFailure(_ failure: NetworkError) -> Bool { failure.serverError?.code == "E05" }
///   func isRequest(_ request: URLRequest, authenticatedWith credential: Tokens) -> Bool {
///     request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.access)"
///   }
/// }
/// ```
public protocol Authenticator: Sendable {
  /// What proves who the caller is, such as an access token and the refresh token that renews it.
  associatedtype Credential: Sendable

  /// Puts `credential` on `request`.
  func apply(_ credential: Credential, to request: inout URLRequest)

  /// A fresh credential in place of `credential`.
  ///
  /// Send the refresh through a client that does not itself refresh (or whose ``requiresCredential(_:)`` is `false`
  /// for the refresh route). The interceptor runs one refresh at a time, outside any caller's task, so one caller's
  /// cancellation does not cancel the refresh the others wait for.
  ///
  /// - Throws: when the credential cannot be refreshed; ``refreshFailureEndsSession(_:)`` reads the error.
  func refresh(_ credential: Credential) async throws -> Credential

  /// Whether `failure` means the server refused the credential, which a refresh can cure (for example `E05`, access
  /// token expired), as opposed to any other failure, including a 401 from somewhere else.
  func isAuthenticationFailure(_ failure: NetworkError) -> Bool

  /// Whether `request` was sent with `credential`; `false` means it carried an older one and only needs to be sent
  /// again, without another refresh.
  func isRequest(_ request: URLRequest, authenticatedWith credential: Credential) -> Bool

  /// Whether `credential` should be refreshed before it is used, for example because it expires within a minute.
  /// By default `false`: refresh only when the server refuses it.
  func requiresRefresh(_ credential: Credential) -> Bool

  /// Whether requests to `endpoint` carry the credential; by default all do. Answer `false` for sign-in and refresh
  /// routes that share the client.
  func requiresCredential(_ endpoint: any Endpoint) -> Bool

  /// Whether a refresh that threw `error` ends the session (the user must sign in again), or was only a passing
  /// failure after which the credential is kept.
  ///
  /// By default a ``NetworkError`` of kind `NetworkError.Kind.transport` or `NetworkError.Kind.rateLimited`, or
  /// with status 408, 429 or 5xx, a `URLError` and a `CancellationError` are passing; anything else ends the session.
  func refreshFailureEndsSession(_ error: any Error) -> Bool
}

extension Authenticator {
  /// Never refreshes ahead of time.
  public func requiresRefresh(_ credential: Credential) -> Bool { false }

  /// Every endpoint carries the credential.
  public func requiresCredential(_ endpoint: any Endpoint) -> Bool { true }

  /// Transport failures, cancellation, rate limits, 408, 429 and 5xx are passing; anything else ends the session.
  public func refreshFailureEndsSession(_ error: any Error) -> Bool {
    if error is URLError || error is CancellationError { return false }
    guard let error = error as? NetworkError else { return true }
    if [.transport, .rateLimited].contains(error.kind) { return false }
    if let status = error.statusCode, status == 408 || status == 429 || status >= 500 { return false }
    return true
  }
}
