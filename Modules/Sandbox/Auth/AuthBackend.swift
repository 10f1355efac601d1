import Foundation
import HTTPTypes
import KeelConcurrency
import KeelJSON

/// The token-auth backend of the chat apps (SandboxAPI §2): login, refresh, logout and `/v1/me`, with access
/// tokens that expire after `accessTokenTTL` and refresh tokens after `refreshTokenTTL`.
struct AuthBackend: Sendable {
  /// An access token's session, kept under the token's digest (``Secrets/digest(_:)``).
  struct Session: Codable {
    let email: String
    /// The digest of the refresh token the session came from.
    var refreshToken: String
    var accessExpiresAt: Duration
  }

  struct RefreshGrant: Codable {
    let email: String
    var expiresAt: Duration
    var revoked = false
  }

  /// Every session and refresh grant, each under its token's digest, never the token: a state file holds nothing a
  /// reader could present. Their times are since the Sandbox started, or, in a snapshot, since it was taken.
  struct State: Codable {
    var sessions: [String: Session] = [:]
    var refreshGrants: [String: RefreshGrant] = [:]
  }

  /// Every account, configured, signed up, or made by a provider's sign-in.
  let directory: AccountDirectory
  /// Apple's and Kakao's sides of sign-in with a provider: their keys, and the check of their tokens.
  let identity: IdentityProviders
  private let accessTokenTTL: Duration
  private let refreshTokenTTL: Duration
  private let time: Timekeeper
  private let stats: RecordedStatistics
  private let state = Locked(State())
  /// Told the digests of a session's access tokens when it ends (a logout), so that the sockets they joined close.
  let sessionsEnded = Locked<(@Sendable (Set<String>) -> Void)?>(nil)

  init(configuration: SandboxConfiguration, time: Timekeeper, stats: RecordedStatistics) {
    directory = AccountDirectory(configured: configuration.accounts)
    identity = IdentityProviders(audience: configuration.providerAudience)
    accessTokenTTL = configuration.accessTokenTTL
    refreshTokenTTL = configuration.refreshTokenTTL
    self.time = time
    self.stats = stats
  }

  var routes: [Route] {
    [
      Route(.post, "/v1/auth/signup", handler: signUp),
      Route(.post, "/v1/auth/login", handler: login),
      Route(.post, "/v1/auth/provider", handler: providerSignIn),
      Route(.post, "/v1/auth/refresh", handler: refresh),
      Route(.post, "/v1/auth/logout", handler: logout),
      Route(.get, "/v1/me", handler: me),
      Route(.patch, "/v1/me", handler: rename),
    ]
  }

  /// Makes every access token expired now (`POST /_sandbox/expire-tokens`).
  func expireAccessTokens() {
    let now = time.now()
    state.withLock { state in
      for token in state.sessions.keys { state.sessions[token]?.accessExpiresAt = now }
    }
  }

  /// Forgets every token and every signed-up account; the configured accounts stay.
  func reset() {
    state.withLock { $0 = State() }
    directory.reset()
  }

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

  /// Creates an account and signs in to it: the answer is a login's, with 201.
  private func signUp(_ request: SandboxRequest) throws -> SandboxResponse {
    guard case .object(let body)? = JSONValue.parse(request.body),
      case .string(let email)? = body["email"], case .string(let password)? = body["password"]
    else { throw BackendError.malformed(#"expected {"email","password","nickname"?}"#) }
    var nickname: String?
    if case .string(let given)? = body["nickname"] { nickname = given }
    let account = try directory.signUp(email: email, password: password, nickname: nickname)
    stats.count("signups")
    return signIn(account).with(status: .created)
  }

  private func login(_ request: SandboxRequest) throws -> SandboxResponse {
    guard case .object(let body)? = JSONValue.parse(request.body),
      case .string(let email)? = body["email"], case .string(let password)? = body["password"]
    else { throw BackendError.malformed(#"expected {"email","password"}"#) }
    guard let account = directory.account(email: email, password: password) else { throw BackendError.loginFailed }
    return signIn(account)
  }

  /// Signs in with a provider's identity token: the first sign-in of a provider's user makes their account (201), a
  /// later one finds it (200).
  private func providerSignIn(_ request: SandboxRequest) throws -> SandboxResponse {
    guard case .object(let body)? = JSONValue.parse(request.body), case .string(let name)? = body["provider"],
      case .string(let token)? = body["idToken"]
    else { throw BackendError.malformed(#"expected {"provider","idToken","nonce"?}"#) }
    guard let provider = IdentityProviders.Provider(rawValue: name) else {
      throw BackendError.malformed("the provider is apple or kakao")
    }
    var nonce: String?
    if case .string(let given)? = body["nonce"] { nonce = given }
    let verified = try identity.verify(token, from: provider, nonce: nonce)
    let (account, isNew) = try directory.account(signedInBy: verified)
    if isNew { stats.count("signups") }
    let answer = signIn(account)
    return isNew ? answer.with(status: .created) : answer
  }

  /// A new session of `account`: its tokens and user.
  private func signIn(_ account: AccountDirectory.Account) -> SandboxResponse {
    let email = account.email
    let now = time.now()
    let accessToken = Self.newToken()
    let refreshToken = Self.newToken()
    let grant = Secrets.digest(refreshToken)
    state.withLock { state in
      prune(&state, now: now)
      state.refreshGrants[grant] = RefreshGrant(email: email, expiresAt: now + refreshTokenTTL)
      state.sessions[Secrets.digest(accessToken)] = Session(
        email: email, refreshToken: grant, accessExpiresAt: now + accessTokenTTL)
    }
    stats.count("logins")
    return .json([
      "accessToken": .string(accessToken), "refreshToken": .string(refreshToken),
      "expiresIn": .number(Self.seconds(accessTokenTTL)), "user": account.json,
    ])
  }

  private func refresh(_ request: SandboxRequest) throws -> SandboxResponse {
    stats.count("refreshes")
    guard let refreshToken = request.header("RefreshToken"), !refreshToken.isEmpty else {
      throw BackendError.refreshTokenInvalid
    }
    let now = time.now()
    let accessToken = Self.newToken()
    let grantKey = Secrets.digest(refreshToken)
    try state.withLock { state in
      prune(&state, now: now)
      guard let grant = state.refreshGrants[grantKey], !grant.revoked, grant.expiresAt > now else {
        throw BackendError.refreshTokenInvalid
      }
      state.sessions[Secrets.digest(accessToken)] = Session(
        email: grant.email, refreshToken: grantKey, accessExpiresAt: now + accessTokenTTL)
    }
    return .json(["accessToken": .string(accessToken), "expiresIn": .number(Self.seconds(accessTokenTTL))])
  }

  /// Ends the session: its refresh grant is revoked (a refresh with it is refused, E06) and every access token
  /// issued from it expires now (a call with one is answered E05, expired, as a client expects of a session ended
  /// elsewhere). What is left of it is pruned once those tokens are past their lifetime.
  private func logout(_ request: SandboxRequest) throws -> SandboxResponse {
    let session = try authenticate(request)
    let now = time.now()
    let ended = state.withLock { state in
      state.refreshGrants[session.refreshToken]?.revoked = true
      var ended: Set<String> = []
      for (token, other) in state.sessions where other.refreshToken == session.refreshToken {
        state.sessions[token]?.accessExpiresAt = min(other.accessExpiresAt, now)
        ended.insert(token)
      }
      return ended
    }
    sessionsEnded.withLock { $0 }?(ended)
    return .json([:])
  }

  /// Forgets what can no longer be used: access tokens expired for longer than a token lives (until then, one
  /// still answers E05, expired, rather than E02, unknown), refresh grants past their expiry, and revoked grants
  /// that no access token refers to any more. Run on every sign-in and refresh, so that the state stays the size
  /// of the sessions of one token lifetime, however many come and go.
  private func prune(_ state: inout State, now: Duration) {
    state.sessions = state.sessions.filter { $0.value.accessExpiresAt + accessTokenTTL > now }
    let referred = Set(state.sessions.values.map(\.refreshToken))
    state.refreshGrants = state.refreshGrants.filter { key, grant in
      grant.expiresAt > now && (!grant.revoked || referred.contains(key))
    }
  }

  /// Why a Socket.IO CONNECT with `token` cannot join (SandboxAPI §6), `nil` when the token is a live access token.
  func socketRefusal(_ token: String?) -> String? {
    guard let token, !token.isEmpty else { return #"No access token: CONNECT with {"token":"<access token>"}."# }
    let digest = Secrets.digest(token)
    guard let session = state.withLock({ $0.sessions[digest] }) else { return "The access token is not valid." }
    guard session.accessExpiresAt > time.now() else { return "The access token has expired." }
    guard sessionGoesOn(tokenDigest: digest) else { return "The session has ended; sign in again." }
    return nil
  }

  /// Whether the session of the access token with this digest goes on: the token is known, and the refresh grant it
  /// came from is neither revoked (a logout) nor expired. An access token that merely expired does not end it (the
  /// client refreshes); a socket that joined with a token whose session ended is closed.
  func sessionGoesOn(tokenDigest digest: String) -> Bool {
    let now = time.now()
    return state.withLock { state in
      guard let session = state.sessions[digest], let grant = state.refreshGrants[session.refreshToken] else {
        return false
      }
      return !grant.revoked && grant.expiresAt > now
    }
  }

  /// The user id of a live access token's account, for the socket's user room; `nil` for any other token.
  func socketUserID(_ token: String?) -> String? {
    guard socketRefusal(token) == nil, let token,
      let email = state.withLock({ $0.sessions[Secrets.digest(token)]?.email })
    else { return nil }
    return directory.account(email: email)?.id
  }

  private func me(_ request: SandboxRequest) throws -> SandboxResponse {
    .json(try account(of: request).json)
  }

  /// `PATCH /v1/me {"nickname"}`: the profile's nickname.
  private func rename(_ request: SandboxRequest) throws -> SandboxResponse {
    let session = try authenticate(request)
    guard case .object(let body)? = JSONValue.parse(request.body), case .string(let nickname)? = body["nickname"] else {
      throw BackendError.malformed(#"expected {"nickname"}"#)
    }
    return .json(try directory.rename(email: session.email, to: nickname).json)
  }

  /// The account of the request's `Authorization: Bearer` token: E02 if unknown, E05 if expired.
  func account(of request: SandboxRequest) throws -> AccountDirectory.Account {
    guard let account = directory.account(email: try authenticate(request).email) else {
      throw BackendError.accessTokenInvalid
    }
    return account
  }

  /// The session of the request's `Authorization: Bearer` token: E02 if unknown, E05 if expired.
  func authenticate(_ request: SandboxRequest) throws -> Session {
    guard let header = request.header("Authorization"), header.hasPrefix("Bearer ") else {
      throw BackendError.accessTokenInvalid
    }
    let token = Secrets.digest(String(header.dropFirst("Bearer ".count)))
    let now = time.now()
    guard let session = state.withLock({ $0.sessions[token] }) else { throw BackendError.accessTokenInvalid }
    guard session.accessExpiresAt > now else { throw BackendError.accessTokenExpired }
    return session
  }

  private static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  private static func newToken() -> String {
    UUID().uuidString.lowercased() + UUID().uuidString.lowercased()
  }
}
