import Domain
import Foundation
import Networking
import Sandbox

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The Sandbox's auth backend and control plane, for these tests (the Domain issue writes the real `AuthRouter`).
struct SandboxRoute: Endpoint {
  var baseURL: URL
  var path: EndpointPath
  var method: HTTPMethod = .get
  var headers: [String: String] = [:]
  var body: HTTPBody = .empty

  static func login(on sandbox: RunningSandbox) -> SandboxRoute {
    SandboxRoute(
      baseURL: sandbox.baseURL, path: "/v1/auth/login", method: .post,
      body: .json(["email": "demo@keel.dev", "password": "demo-password"]))
  }

  static func refresh(_ refreshToken: String, on baseURL: URL) -> SandboxRoute {
    SandboxRoute(baseURL: baseURL, path: "/v1/auth/refresh", method: .post, headers: ["RefreshToken": refreshToken])
  }

  static func logout(_ tokens: SandboxSession, on sandbox: RunningSandbox) -> SandboxRoute {
    SandboxRoute(
      baseURL: sandbox.baseURL, path: "/v1/auth/logout", method: .post,
      headers: ["Authorization": "Bearer \(tokens.access)"])
  }

  static func me(on sandbox: RunningSandbox) -> SandboxRoute { SandboxRoute(baseURL: sandbox.baseURL, path: "/v1/me") }

  static func expireTokens(on sandbox: RunningSandbox) -> SandboxRoute {
    SandboxRoute(baseURL: sandbox.baseURL, path: "/_sandbox/expire-tokens", method: .post)
  }
}

/// An access token and the refresh token that renews it.
struct SandboxSession: Sendable, Equatable {
  var access: String
  var refresh: String
}

/// Signs in to the Sandbox through `transport` and returns the session.
func signIn(_ sandbox: RunningSandbox, over transport: any HTTPTransport) async throws -> SandboxSession {
  struct Login: Decodable {
    let accessToken: String
    let refreshToken: String
  }
  let login = try await HTTPClient(transport: transport).send(APIRequest<Login>.json(SandboxRoute.login(on: sandbox)))
  return SandboxSession(access: login.accessToken, refresh: login.refreshToken)
}

/// A counter from `GET /_sandbox/stats`, such as `refreshes`; 0 if absent.
func sandboxCounter(_ name: String, on sandbox: RunningSandbox) async throws -> Int {
  try await sandbox.control.statistics().counter(name)
}

/// How many responses of `status` the Sandbox gave to `route` (a pattern such as `GET /v3/users/:user_id`).
func sandboxResponses(_ route: String, status: Int, on sandbox: RunningSandbox) async throws -> Int {
  try await sandbox.control.statistics().responses(route, status: status)
}

/// The chat backend's bearer tokens: `E05` is the failure a refresh cures; the refresh goes through its own client.
struct SandboxAuthenticator: Authenticator {
  /// The chat backend that refreshes the tokens.
  let baseURL: URL
  /// The client of the refresh calls.
  let auth: HTTPClient

  /// An authenticator that refreshes on `baseURL`, sending through `transport`.
  init(baseURL: URL, transport: any HTTPTransport) {
    self.baseURL = baseURL
    auth = HTTPClient(transport: transport, serverErrorDecoders: [.chatBackend])
  }

  func apply(_ credential: SandboxSession, to request: inout URLRequest) {
    request.setValue("Bearer \(credential.access)", forHTTPHeaderField: "Authorization")
  }

  func refresh(_ credential: SandboxSession) async throws -> SandboxSession {
    struct Refreshed: Decodable { let accessToken: String }
    let refreshed = try await auth.send(
      APIRequest<Refreshed>.json(SandboxRoute.refresh(credential.refresh, on: baseURL)))
    return SandboxSession(access: refreshed.accessToken, refresh: credential.refresh)
  }

  func isAuthenticationFailure(_ failure: NetworkError) -> Bool { failure.serverError?.code == "E05" }

  func isRequest(_ request: URLRequest, authenticatedWith credential: SandboxSession) -> Bool {
    request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.access)"
  }
}
