import Foundation
import KeelConcurrency
import Networking
import TestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The chat backend's auth API in memory (SandboxAPI §2), as a transport: login, refresh, logout and `/v1/me`
/// with tokens that a test expires, invalidates or revokes, and counts of what was asked.
///
/// Tokens are numbered in the order they are issued (`access-1`, `refresh-2`, `access-3`, …), so tests can name them.
final class FakeAuthBackend: HTTPTransport {
  static let baseURL = URL(string: "https://chat.example.test")!
  static let email = "demo@keel.dev"
  static let password = "demo-password"
  static let user = #"{"id":"user-demo","email":"demo@keel.dev","nickname":"demo"}"#

  private struct AccessToken {
    let refreshToken: String
    var isExpired = false
  }

  private struct State {
    var accessTokens: [String: AccessToken] = [:]
    var refreshTokens: [String: Bool] = [:]  // token → revoked
    var issued = 0
    var requests: [URLRequest] = []
    var statuses: [Int] = []
    var failures: [String: Int] = [:]  // path → status of its next answer
  }

  /// Refreshes wait here while a test holds it closed.
  let refreshGate = Gate()
  /// The lifetime of an access token, in seconds.
  let expiresIn: Double
  private let state = Locked(State())

  init(expiresIn: Double = 60) { self.expiresIn = expiresIn }

  /// Every request, in the order received.
  var requests: [URLRequest] { state.withLock { $0.requests } }
  /// `METHOD /path` of every request, in order.
  var calls: [String] { requests.map { "\($0.httpMethod ?? "GET") \($0.url?.path ?? "")" } }
  /// How many requests went to `path`.
  func count(_ path: String) -> Int { requests.filter { $0.url?.path == path }.count }
  /// How many refreshes were asked for.
  var refreshes: Int { count("/v1/auth/refresh") }
  /// How many answers had `status`.
  func answers(status: Int) -> Int { state.withLock { $0.statuses.filter { $0 == status }.count } }

  /// Makes every access token answer `E05`.
  func expireAccessTokens() {
    state.withLock { state in
      for token in state.accessTokens.keys { state.accessTokens[token]?.isExpired = true }
    }
  }

  /// Forgets every access token, so they answer `E02`.
  func forgetAccessTokens() { state.withLock { $0.accessTokens = [:] } }

  /// Revokes every refresh token, so refreshes answer `E06`.
  func revokeRefreshTokens() {
    state.withLock { state in
      for token in state.refreshTokens.keys { state.refreshTokens[token] = true }
    }
  }

  /// Whether `refreshToken` was revoked.
  func isRevoked(_ refreshToken: String) -> Bool { state.withLock { $0.refreshTokens[refreshToken] == true } }

  /// Answers the next request to `path` with `status`, as the Sandbox answers an injected fault (SandboxAPI §5).
  func failNext(_ path: String, status: Int) { state.withLock { $0.failures[path] = status } }

  func send(_ request: URLRequest) async throws -> RawResponse {
    let path = request.url?.path ?? ""
    let failure = state.withLock { state in
      state.requests.append(request)
      return state.failures.removeValue(forKey: path)
    }
    if path == "/v1/auth/refresh" { await refreshGate.pass() }
    let response =
      if let failure {
        Self.json(failure, #"{"errorCode":"E\#(failure)","message":"Injected fault."}"#)
      } else {
        answer(request, path: path)
      }
    state.withLock { $0.statuses.append(response.status) }
    return response
  }

  private func answer(_ request: URLRequest, path: String) -> RawResponse {
    switch (request.httpMethod ?? "GET", path) {
    case ("POST", "/v1/auth/login"): login(request)
    case ("POST", "/v1/auth/refresh"): refresh(request)
    case ("POST", "/v1/auth/logout"): logout(request)
    case ("GET", "/v1/me"): authenticated(request) { _ in Self.json(200, Self.user) }
    default: Self.json(404, #"{"errorCode":"E404","message":"Route \#(path) not found."}"#)
    }
  }

  private func login(_ request: URLRequest) -> RawResponse {
    let body = request.httpBody.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: String] }
    guard body?["email"] == Self.email, body?["password"] == Self.password else {
      return Self.error(401, "E03", "Email or password is wrong.")
    }
    let (access, refresh) = state.withLock { state in
      let access = Self.issue("access", &state)
      let refresh = Self.issue("refresh", &state)
      state.refreshTokens[refresh] = false
      state.accessTokens[access] = AccessToken(refreshToken: refresh)
      return (access, refresh)
    }
    return Self.json(
      200,
      #"{"accessToken":"\#(access)","refreshToken":"\#(refresh)","expiresIn":\#(expiresIn),"user":\#(Self.user)}"#)
  }

  private func refresh(_ request: URLRequest) -> RawResponse {
    let refresh = request.value(forHTTPHeaderField: "RefreshToken") ?? ""
    let access: String? = state.withLock { state in
      guard state.refreshTokens[refresh] == false else { return nil }
      let access = Self.issue("access", &state)
      state.accessTokens[access] = AccessToken(refreshToken: refresh)
      return access
    }
    guard let access else { return Self.error(401, "E06", "Refresh token expired, revoked or invalid; log in again.") }
    return Self.json(200, #"{"accessToken":"\#(access)","expiresIn":\#(expiresIn)}"#)
  }

  private func logout(_ request: URLRequest) -> RawResponse {
    authenticated(request) { session in
      // As the Sandbox does: the refresh token is revoked, and every access token of the session expires with it.
      state.withLock { state in
        state.refreshTokens[session.refreshToken] = true
        for (token, access) in state.accessTokens where access.refreshToken == session.refreshToken {
          state.accessTokens[token]?.isExpired = true
        }
      }
      return Self.json(200, "{}")
    }
  }

  private func authenticated(_ request: URLRequest, _ answer: (AccessToken) -> RawResponse) -> RawResponse {
    let header = request.value(forHTTPHeaderField: "Authorization") ?? ""
    let token = header.hasPrefix("Bearer ") ? String(header.dropFirst("Bearer ".count)) : ""
    guard let session = state.withLock({ $0.accessTokens[token] }) else {
      return Self.error(401, "E02", "Access token invalid.")
    }
    guard !session.isExpired else { return Self.error(401, "E05", "Access token expired.") }
    return answer(session)
  }

  private static func issue(_ kind: String, _ state: inout State) -> String {
    state.issued += 1
    return "\(kind)-\(state.issued)"
  }

  private static func error(_ status: Int, _ code: String, _ message: String) -> RawResponse {
    json(status, #"{"errorCode":"\#(code)","message":"\#(message)"}"#)
  }

  private static func json(_ status: Int, _ body: String) -> RawResponse {
    RawResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
  }
}
