import Foundation
import Networking
import Persistence
import TestSupport
import Testing

@testable import Domain

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Token refresh through the session's client (REQUIREMENTS A4, A5).
/// `SessionManagerIntegrationTests` and `TokenRefreshIntegrationTests` show one refresh for a burst, E02 not refreshed
/// a revoked refresh token and a refresh answered after the logout against the Sandbox. Only here: a refresh ahead of
/// expiry, a rule of the clock tested on a manual one.
@Suite("SessionManager: refresh", .timeLimit(.minutes(3)))
struct SessionRefreshTests {
  let backend = FakeAuthBackend()
  let store = InMemorySecureStore()
  let now = ManualNow()

  private func signedIn() async throws -> SessionManager {
    let sessions = makeSessionManager(backend, store: store, now: now)
    try await sessions.login(email: FakeAuthBackend.email, password: FakeAuthBackend.password)
    return sessions
  }

  @Test("E05 on a burst of 20 concurrent calls: exactly one refresh, and all 20 succeed with the new token (A5)")
  func burstCausesOneRefresh() async throws {
    let sessions = try await signedIn()
    backend.expireAccessTokens()

    let users = try await withThrowingTaskGroup(of: SessionUser.self) { group in
      for _ in 0..<20 { group.addTask { try await sessions.me() } }
      return try await group.reduce(into: [SessionUser]()) { $0.append($1) }
    }

    #expect(users == Array(repeating: demoUser, count: 20))
    #expect(backend.refreshes == 1)
    #expect(backend.answers(status: 401) >= 1, "the token really had expired")
    #expect(try store.storedSession()?.accessToken == "access-3")
    #expect(sessions.state == .loggedIn(demoUser))
  }

  @Test("E02 (an access token the server does not know) is not refreshed: the call fails and the session stays")
  func invalidTokenIsNotRefreshed() async throws {
    let sessions = try await signedIn()
    backend.forgetAccessTokens()

    let error = await #expect(throws: SessionError.self) { try await sessions.me() }

    #expect(error?.requestFailure?.serverCode == "E02")
    #expect(backend.refreshes == 0)
    #expect(sessions.state == .loggedIn(demoUser))
  }

  @Test("A token about to expire is refreshed before the call goes out")
  func refreshesAheadOfExpiry() async throws {
    let sessions = try await signedIn()
    now.advance(by: 44)
    _ = try await sessions.me()
    #expect(backend.refreshes == 0, "44 s into a 60 s token: not yet")

    now.advance(by: 1)
    _ = try await sessions.me()

    #expect(backend.calls.suffix(2) == ["POST /v1/auth/refresh", "GET /v1/me"])
    #expect(backend.answers(status: 401) == 0)
    #expect(backend.requests.last?.value(forHTTPHeaderField: "Authorization") == "Bearer access-3")
  }

  @Test("A revoked refresh token (E06): every waiting call fails, the tokens are wiped, expired is published once")
  func revokedRefreshTokenExpiresOnce() async throws {
    let sessions = try await signedIn()
    var states = sessions.states().makeAsyncIterator()
    #expect(await states.next() == .loggedIn(demoUser))
    backend.revokeRefreshTokens()
    backend.expireAccessTokens()

    let reasons = await failuresOfConcurrentCalls(10) { try await sessions.me() }.map {
      ($0 as? SessionError)?.requestFailure?.kind
    }

    #expect(reasons == Array(repeating: .sessionExpired, count: 10))
    #expect(backend.refreshes == 1)
    #expect(await states.next() == .expired)
    #expect(sessions.state == .expired)
    #expect(sessions.currentUser == nil)
    #expect(try store.storedSession() == nil)
    let sent = backend.requests.count
    await #expect(throws: SessionError.self) { try await sessions.me() }
    #expect(backend.requests.count == sent, "no call is sent after the session expired")

    try await sessions.logout()
    #expect(await states.next() == .loggedOut, "expired was published once, then the logout")
    #expect(backend.requests.count == sent, "nothing left to revoke")
  }

  @Test("A refresh that finishes after logout does not bring the tokens back")
  func refreshAfterLogoutIsNotKept() async throws {
    let sessions = try await signedIn()
    backend.expireAccessTokens()
    backend.refreshGate.close()
    let call = TaskProbe { try await sessions.me() }
    #expect(await eventually { backend.refreshGate.waitingCount == 1 })

    let logout = TaskProbe { try await sessions.logout() }
    #expect(await eventually { sessions.state == .loggedOut })
    #expect(try store.storedSession() == nil)
    let failure = try #require(await call.error() as? SessionError)
    #expect(failure.requestFailure?.kind == .sessionExpired, "the waiting call ends with the session")
    backend.refreshGate.open()

    #expect(await logout.finished() != nil)
    #expect(try store.storedSession() == nil)
    #expect(sessions.state == .loggedOut)
    #expect(backend.isRevoked("refresh-2"))
  }
}
