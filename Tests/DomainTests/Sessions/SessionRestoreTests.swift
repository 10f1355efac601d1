import Foundation
import Networking
import Persistence
import TestSupport
import Testing

@testable import Domain

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A session survives a restart (REQUIREMENTS A6): a new manager on the same secure store.
/// `SessionManagerIntegrationTests` shows a restart signed in as the same user, on the refreshed token, against the
/// Sandbox. Only here: a stored session that cannot be read, damage to the store that no server can cause.
@Suite("SessionManager: restart", .timeLimit(.minutes(3)))
struct SessionRestoreTests {
  @Test("A new manager on the same encrypted store is logged in as the same user without a login request")
  func restartIsLoggedIn() async throws {
    let backend = FakeAuthBackend()
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try await makeSessionManager(backend, store: EncryptedFileSecureStore(directory: directory)).login(
      email: FakeAuthBackend.email, password: FakeAuthBackend.password)

    let restarted = makeSessionManager(backend, store: try EncryptedFileSecureStore(directory: directory))

    #expect(restarted.state == .loggedIn(demoUser))
    #expect(restarted.currentUser == demoUser)
    #expect(try await restarted.me() == demoUser)
    #expect(backend.calls == ["POST /v1/auth/login", "GET /v1/me"])
    #expect(backend.requests.last?.value(forHTTPHeaderField: "Authorization") == "Bearer access-1")
  }

  @Test("A refreshed access token is written to the store, so a restart starts with the newest one")
  func restartKeepsNewestAccessToken() async throws {
    let backend = FakeAuthBackend()
    let store = InMemorySecureStore()
    let sessions = makeSessionManager(backend, store: store)
    try await sessions.login(email: FakeAuthBackend.email, password: FakeAuthBackend.password)
    backend.expireAccessTokens()
    _ = try await sessions.me()
    #expect(backend.refreshes == 1)
    #expect(try store.storedSession()?.accessToken == "access-3")

    let restarted = makeSessionManager(backend, store: store)
    _ = try await restarted.me()

    #expect(backend.refreshes == 1, "no second refresh after the restart")
    #expect(backend.requests.last?.value(forHTTPHeaderField: "Authorization") == "Bearer access-3")
  }

  @Test("A stored session that cannot be read is discarded: the manager starts loggedOut")
  func unreadableSessionStartsLoggedOut() throws {
    let store = InMemorySecureStore()
    try store.set(Data("not credentials".utf8), forKey: SessionManager.storageKey)

    let sessions = makeSessionManager(FakeTransport(), store: store)

    #expect(sessions.state == .loggedOut)
    #expect(try store.data(forKey: SessionManager.storageKey) == nil)
  }
}
