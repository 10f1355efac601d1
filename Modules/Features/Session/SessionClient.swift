import Domain

/// What ``SessionFeature`` needs of a session manager, as closures: `live(_:)` for a `SessionManager`, fakes in tests.
public struct SessionClient: Sendable {
  /// Signs in with an email and a password; throws a `SessionError` when it cannot.
  public var login: @Sendable (_ email: String, _ password: String) async throws -> SessionUser
  /// Signs out; the session ends on this device even when it throws.
  public var logout: @Sendable () async throws -> Void
  /// The session's state now, then each change.
  public var states: @Sendable () -> AsyncStream<SessionState>
  /// The session's state now: how the feature recognises a value of ``states`` that a newer one already replaced.
  public var current: @Sendable () -> SessionState
  /// Creates an account and signs it in; throws a `SessionError` when it cannot (`E409`: the email has one).
  public var signUp: @Sendable (_ email: String, _ password: String, _ nickname: String?) async throws -> SessionUser
  /// Exchanges a provider's identity token for a session; throws a `SessionError` (its `providerRefusal` says why
  /// the backend refused the token).
  public var signInWithProvider:
    @Sendable (_ provider: IdentityProvider, _ idToken: String, _ nonce: String?) async throws -> SessionUser

  /// A client made of closures.
  public init(
    login: @escaping @Sendable (_ email: String, _ password: String) async throws -> SessionUser,
    logout: @escaping @Sendable () async throws -> Void, states: @escaping @Sendable () -> AsyncStream<SessionState>,
    current: @escaping @Sendable () -> SessionState,
    signUp: @escaping @Sendable (_ email: String, _ password: String, _ nickname: String?) async throws -> SessionUser,
    signInWithProvider:
      @escaping @Sendable (_ provider: IdentityProvider, _ idToken: String, _ nonce: String?) async throws
      -> SessionUser
  ) {
    self.login = login
    self.logout = logout
    self.states = states
    self.current = current
    self.signUp = signUp
    self.signInWithProvider = signInWithProvider
  }

  /// The client of `sessions`.
  public static func live(_ sessions: SessionManager) -> SessionClient {
    SessionClient(
      login: { try await sessions.login(email: $0, password: $1) }, logout: { try await sessions.logout() },
      states: { sessions.states() }, current: { sessions.state },
      signUp: { try await sessions.signUp(email: $0, password: $1, nickname: $2) },
      signInWithProvider: { try await sessions.signIn(with: $0, idToken: $1, nonce: $2) })
  }
}
