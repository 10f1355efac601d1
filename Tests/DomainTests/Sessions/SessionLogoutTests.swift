import Foundation
import Networking
import Persistence
import TestSupport
import Testing

@testable import Domain

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Signing out: revoked on the server, wiped on this device whatever the server says.
/// `SessionManagerIntegrationTests` shows a logout that revokes, one with an expired access token and one through a
/// 503, and one after another client signed the session out, against the Sandbox; a logout with nobody signed in
/// sends nothing, so needs no server.
@Suite("SessionManager: logout", .timeLimit(.minutes(3)))
struct SessionLogoutTests {
  let backend = FakeAuthBackend()
  let store = InMemorySecureStore()

  private func signedIn() async throws -> SessionManager {
    let sessions = makeSessionManager(backend, store: store)
    try await sessions.login(email: FakeAuthBackend.email, password: FakeAuthBackend.password)
    return sessions
  }

  @Test("Logout revokes the refresh token on the server, wipes the store and publishes loggedOut")
  func logoutRevokesAndWipes() async throws {
    let sessions = try await signedIn()

    try await sessions.logout()

    #expect(backend.calls.last == "POST /v1/auth/logout")
    #expect(backend.requests.last?.value(forHTTPHeaderField: "Authorization") == "Bearer access-1")
    #expect(backend.isRevoked("refresh-2"))
    #expect(try store.storedSession() == nil)
    #expect(sessions.state == .loggedOut)
    let sent = backend.requests.count
    let error = await #expect(throws: SessionError.self) { try await sessions.me() }
    #expect(error?.requestFailure?.kind == .sessionExpired)
    #expect(backend.requests.count == sent)
  }

  @Test("With an expired access token, logout refreshes it to prove who signs out, then revokes")
  func logoutWithExpiredAccessToken() async throws {
    let sessions = try await signedIn()
    backend.expireAccessTokens()

    try await sessions.logout()

    #expect(
      backend.calls == ["POST /v1/auth/login", "POST /v1/auth/logout", "POST /v1/auth/refresh", "POST /v1/auth/logout"])
    #expect(backend.requests.last?.value(forHTTPHeaderField: "Authorization") == "Bearer access-3")
    #expect(backend.isRevoked("refresh-2"))
  }

  @Test("When the server fails, logout still wipes this device and throws revocationFailed")
  func serverFailureStillWipes() async throws {
    let sessions = try await signedIn()
    backend.failNext("/v1/auth/logout", status: 503)

    let error = await #expect(throws: SessionError.self) { try await sessions.logout() }

    #expect(error?.kind == .revocationFailed)
    #expect(error?.requestFailure?.statusCode == 503)
    #expect(try store.storedSession() == nil)
    #expect(sessions.state == .loggedOut)
    #expect(!backend.isRevoked("refresh-2"))
  }

  @Test("A refresh token the server already refuses counts as revoked")
  func alreadyRevoked() async throws {
    let sessions = try await signedIn()
    backend.revokeRefreshTokens()
    backend.expireAccessTokens()

    try await sessions.logout()

    #expect(backend.calls.suffix(2) == ["POST /v1/auth/logout", "POST /v1/auth/refresh"])
    #expect(sessions.state == .loggedOut)
  }

  @Test("Logout when nobody is signed in sends nothing")
  func logoutWhenLoggedOut() async throws {
    let transport = FakeTransport()
    let sessions = makeSessionManager(transport)

    try await sessions.logout()

    #expect(transport.requests.isEmpty)
    #expect(sessions.state == .loggedOut)
  }
}
