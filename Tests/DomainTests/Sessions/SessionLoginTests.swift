import Foundation
import Networking
import Persistence
import TestSupport
import Testing

@testable import Domain

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Signing in (REQUIREMENTS A6): tokens kept in the secure store, typed errors, nothing sent for bad input.
/// `SessionManagerIntegrationTests` shows a login, a wrong password (E03) and a failing server (503) against the
/// Sandbox. Only here: input refused before anything is sent, a secure store that fails, and the exact expiry date,
/// which needs a fixed clock.
@Suite("SessionManager: login", .timeLimit(.minutes(3)))
struct SessionLoginTests {
  @Test("Login keeps the tokens in the secure store under one key and publishes loggedIn")
  func loginKeepsTokens() async throws {
    // GIVEN
    let backend = FakeAuthBackend()
    let store = InMemorySecureStore()
    let now = ManualNow()
    let sessions = makeSessionManager(backend, store: store, now: now)
    #expect(sessions.state == .loggedOut)

    // WHEN
    let user = try await sessions.login(email: "  demo@keel.dev\n", password: FakeAuthBackend.password)

    // THEN
    #expect(user == demoUser)
    #expect(sessions.state == .loggedIn(demoUser))
    #expect(sessions.currentUser == demoUser)
    let stored = try #require(try store.storedSession())
    #expect(stored.accessToken == "access-1")
    #expect(stored.refreshToken == "refresh-2")
    #expect(stored.user == demoUser)
    #expect(stored.expiresAt == now.now().addingTimeInterval(60))
    let login = try #require(backend.requests.first)
    #expect(login.value(forHTTPHeaderField: "Authorization") == nil)
    let body = try JSONSerialization.jsonObject(with: login.httpBody ?? Data()) as? [String: String]
    #expect(body == ["email": "demo@keel.dev", "password": "demo-password"], "the email is trimmed")
  }

  @Test(
    "An empty email or password is a typed error and nothing is sent",
    arguments: [("", "demo-password"), (" \t\n", "demo-password"), ("demo@keel.dev", "")])
  func invalidInputSendsNothing(email: String, password: String) async throws {
    let transport = FakeTransport()  // fails the test if anything is sent
    let sessions = makeSessionManager(transport)

    let error = await #expect(throws: SessionError.self) {
      try await sessions.login(email: email, password: password)
    }

    #expect(error?.kind == .invalidInput)
    #expect(transport.requests.isEmpty)
    #expect(sessions.state == .loggedOut)
  }

  @Test("A wrong password is loginRefused with the server's E03, and the state stays loggedOut")
  func wrongPassword() async throws {
    let backend = FakeAuthBackend()
    let store = InMemorySecureStore()
    let sessions = makeSessionManager(backend, store: store)

    let error = await #expect(throws: SessionError.self) {
      try await sessions.login(email: FakeAuthBackend.email, password: "wrong")
    }

    #expect(error?.kind == .loginRefused)
    #expect(error?.requestFailure?.serverCode == "E03")
    #expect(sessions.state == .loggedOut)
    #expect(try store.storedSession() == nil)
  }

  @Test("A server failure during login is a failed request carrying the status")
  func serverFailure() async throws {
    let backend = FakeAuthBackend()
    backend.failNext("/v1/auth/login", status: 503)
    let sessions = makeSessionManager(backend)

    let error = await #expect(throws: SessionError.self) {
      try await sessions.login(email: FakeAuthBackend.email, password: FakeAuthBackend.password)
    }

    #expect(error?.kind == .requestFailed)
    #expect(error?.requestFailure?.statusCode == 503)
    #expect(sessions.state == .loggedOut)
  }

  @Test("When the secure store cannot keep the tokens, no session starts and authenticated calls are not sent")
  func storeFailureStartsNoSession() async throws {
    let backend = FakeAuthBackend()
    let sessions = makeSessionManager(backend, store: FailingSecureStore())

    let error = await #expect(throws: SessionError.self) {
      try await sessions.login(email: FakeAuthBackend.email, password: FakeAuthBackend.password)
    }

    #expect(error?.kind == .storage)
    #expect(sessions.state == .loggedOut)
    let failure = await #expect(throws: SessionError.self) { try await sessions.me() }
    #expect(failure?.requestFailure?.kind == .sessionExpired)
    #expect(backend.calls == ["POST /v1/auth/login"])
  }
}
