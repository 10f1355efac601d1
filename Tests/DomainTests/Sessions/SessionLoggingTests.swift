import Foundation
import Logging
import Persistence
import TestSupport
import Testing

@testable import Domain

/// Secrets never reach a log: not the password, not a token, whatever the level.
/// `SessionManagerIntegrationTests` checks the same trace-level log against the Sandbox, through a login, a refresh
/// and a logout.
@Suite("SessionManager: logging", .timeLimit(.minutes(3)))
struct SessionLoggingTests {
  @Test("Login, refresh, an authenticated call and logout log at trace level without a token or the password")
  func noSecretsInLogs() async throws {
    let backend = FakeAuthBackend()
    let capture = LogCapture()
    let sessions = makeSessionManager(backend, logger: capture.logger(level: .trace))

    try await sessions.login(email: FakeAuthBackend.email, password: FakeAuthBackend.password)
    backend.expireAccessTokens()
    _ = try await sessions.me()
    try await sessions.logout()

    let text = capture.text
    #expect(text.contains("POST https://chat.example.test/v1/auth/refresh"), "requests are logged")
    #expect(text.contains("Signed in as user-demo"))
    for secret in ["access-1", "refresh-2", "access-3", FakeAuthBackend.password] {
      #expect(!text.contains(secret), "\(secret) was logged")
    }
  }
}
