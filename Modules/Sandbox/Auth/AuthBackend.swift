import Foundation
import HTTPTypes
import Locking

/// The token-auth backend of the chat apps (SANDBOX_API.md §2): login, refresh, logout and `/v1/me`, with access
/// tokens that expire after `accessTokenTTL` and refresh tokens after `refreshTokenTTL`.
struct AuthBackend: Sendable {
  struct Session: Codable {
    let email: String
    var refreshToken: String
    var accessExpiresAt: Duration
  }

  struct RefreshGrant: Codable {
    let email: String
    var expiresAt: Duration
    var revoked = false
  }

  /// Every session and refresh grant; their times are since the Sandbox started, or, in a snapshot, since it was
  /// taken.
  struct State: Codable {
    var sessions: [String: Session] = [:]
    var refreshGrants: [String: RefreshGrant] = [:]
  }

  private let accounts: [String: String]
  private let accessTokenTTL: Duration
  private let refreshTokenTTL: Duration
  private let time: Timekeeper
  private let stats: SandboxStats
  private let state = Locked(State())

  init(configuration: SandboxConfiguration, time: Timekeeper, stats: SandboxStats) {
    accounts = configuration.accounts
    accessTokenTTL = configuration.accessTokenTTL
    refreshTokenTTL = configuration.refreshTokenTTL
    self.time = time
    self.stats = stats
  }

  var routes: [Route] {
    [
      Route(.post, "/v1/auth/login", handler: login),
      Route(.post, "/v1/auth/refresh", handler: refresh),
      Route(.post, "/v1/auth/logout", handler: logout),
      Route(.get, "/v1/me", handler: me),
    ]
  }

  /// Makes every access token expired now (`POST /_sandbox/expire-tokens`).
  func expireAccessTokens() {
    let now = time.now()
    state.withLock { state in
      for token in state.sessions.keys { state.sessions[token]?.accessExpiresAt = now }
    }
  }

  /// Forgets every token; the accounts stay.
  func reset() { state.withLock { $0 = State() } }

  /// The sessions and refresh grants, their expiries counted from now, to be kept between runs.
  var snapshot: State { rebased(state.withLock { $0 }, by: .zero - time.now()) }

  /// Puts back the sessions of a snapshot taken `elapsed` ago (an expiry passed meanwhile stays passed).
  func restore(_ snapshot: State, takenAgo elapsed: Duration) {
    state.withLock { $0 = rebased(snapshot, by: time.now() - elapsed) }
  }

  private func rebased(_ state: State, by offset: Duration) -> State {
    var state = state
    for token in state.sessions.keys { state.sessions[token]?.accessExpiresAt += offset }
    for token in state.refreshGrants.keys { state.refreshGrants[token]?.expiresAt += offset }
    return state
  }

  private func login(_ request: SandboxRequest) throws -> SandboxResponse {
    guard case .object(let body)? = JSONValue.parse(request.body),
      case .string(let email)? = body["email"], case .string(let password)? = body["password"]
    else { throw BackendError.malformed(#"expected {"email","password"}"#) }
    guard accounts[email] == password else { throw BackendError.loginFailed }
    let now = time.now()
    let accessToken = Self.newToken()
    let refreshToken = Self.newToken()
    state.withLock { state in
      state.refreshGrants[refreshToken] = RefreshGrant(email: email, expiresAt: now + refreshTokenTTL)
      state.sessions[accessToken] = Session(
        email: email, refreshToken: refreshToken, accessExpiresAt: now + accessTokenTTL)
    }
    stats.count("logins")
    return .json([
      "accessToken": .string(accessToken), "refreshToken": .string(refreshToken),
      "expiresIn": .number(Self.seconds(accessTokenTTL)), "user": Self.user(email),
    ])
  }

  private func refresh(_ request: SandboxRequest) throws -> SandboxResponse {
    stats.count("refreshes")
    guard let refreshToken = request.header("RefreshToken"), !refreshToken.isEmpty else {
      throw BackendError.refreshTokenInvalid
    }
    let now = time.now()
    let accessToken = Self.newToken()
    try state.withLock { state in
      guard let grant = state.refreshGrants[refreshToken], !grant.revoked, grant.expiresAt > now else {
        throw BackendError.refreshTokenInvalid
      }
      state.sessions[accessToken] = Session(
        email: grant.email, refreshToken: refreshToken, accessExpiresAt: now + accessTokenTTL)
    }
    return .json(["accessToken": .string(accessToken), "expiresIn": .number(Self.seconds(accessTokenTTL))])
  }

  private func logout(_ request: SandboxRequest) throws -> SandboxResponse {
    let session = try authenticate(request)
    state.withLock { $0.refreshGrants[session.refreshToken]?.revoked = true }
    return .json([:])
  }

  private func me(_ request: SandboxRequest) throws -> SandboxResponse {
    .json(Self.user(try authenticate(request).email))
  }

  /// The session of the request's `Authorization: Bearer` token: E02 if unknown, E05 if expired.
  private func authenticate(_ request: SandboxRequest) throws -> Session {
    guard let header = request.header("Authorization"), header.hasPrefix("Bearer ") else {
      throw BackendError.accessTokenInvalid
    }
    let token = String(header.dropFirst("Bearer ".count))
    let now = time.now()
    guard let session = state.withLock({ $0.sessions[token] }) else { throw BackendError.accessTokenInvalid }
    guard session.accessExpiresAt > now else { throw BackendError.accessTokenExpired }
    return session
  }

  private static func user(_ email: String) -> JSONValue {
    let nickname = String(email.prefix { $0 != "@" })
    return ["id": .string("user-" + nickname), "email": .string(email), "nickname": .string(nickname)]
  }

  private static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  private static func newToken() -> String {
    UUID().uuidString.lowercased() + UUID().uuidString.lowercased()
  }
}
