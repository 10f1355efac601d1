import Clocks
import Domain
import Foundation
import Logging
import Networking
import Persistence
import Sandbox
import TestSupport
import Testing

/// REQUIREMENTS A4, A5, A6 over real HTTP: the Domain's SessionManager against the Sandbox's auth backend, with the
/// tokens in an encrypted file store.
@Suite("SessionManager against the Sandbox", .timeLimit(.minutes(3)))
struct SessionManagerIntegrationTests {
  @Test(
    "Login → expiry → 20 concurrent calls, exactly 1 refresh → logout revokes on the server and wipes the store",
    arguments: TransportKind.allCases)
  func lifecycle(_ kind: TransportKind) async throws {
    // GIVEN a signed-in session, observed, logged at trace level
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = try sessionStoreDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try EncryptedFileSecureStore(directory: directory)
    let capture = LogCapture()
    let sessions = sandboxSessions(
      on: sandbox, store: store, transport: kind.transport, logger: capture.logger(level: .trace))
    let states = Recorder<SessionState>()
    let observer = Task { for await state in sessions.states() { states.record(state) } }
    #expect(await eventually { states.count == 1 })
    let user = try await sessions.login(email: "demo@keel.dev", password: "demo-password")
    #expect(user == SessionUser(id: "user-demo", email: "demo@keel.dev", nickname: "demo"))
    let first = try #require(try storedCredentials(in: store))

    // WHEN every access token expires and 20 calls go at once
    _ = try await HTTPClient().send(.data(SandboxRoute.expireTokens(on: sandbox)))
    let users = try await withThrowingTaskGroup(of: SessionUser.self) { group in
      for _ in 0..<20 { group.addTask { try await sessions.me() } }
      return try await group.reduce(into: [SessionUser]()) { $0.append($1) }
    }

    // THEN all succeed after one refresh, whose token is what the store keeps
    #expect(users == Array(repeating: user, count: 20))
    #expect(try await sandboxCounter("refreshes", on: sandbox) == 1)
    #expect(try await sandboxResponses("GET /v1/me", status: 401, on: sandbox) >= 1, "the token really had expired")
    let refreshed = try #require(try storedCredentials(in: store))
    #expect(refreshed.accessToken != first.accessToken)
    #expect(refreshed.refreshToken == first.refreshToken)

    // WHEN signing out
    try await sessions.logout()

    // THEN the server refuses the old refresh token, the store is empty (on disk too), the state is loggedOut
    let refusal = await #expect(throws: NetworkError.self) {
      try await HTTPClient(transport: kind.transport, serverErrorDecoders: [.chatBackend]).send(
        .data(SandboxRoute.refresh(first.refreshToken, on: sandbox.baseURL)))
    }
    #expect(refusal?.serverError?.code == "E06")
    #expect(try store.data(forKey: SessionManager.storageKey) == nil)
    #expect(try EncryptedFileSecureStore(directory: directory).data(forKey: SessionManager.storageKey) == nil)
    #expect(sessions.state == .loggedOut)
    #expect(await eventually { states.elements == [.loggedOut, .loggedIn(user), .loggedOut] })
    let logs = capture.text
    #expect(logs.contains("/v1/auth/refresh"), "the refresh was logged")
    for secret in [first.accessToken, first.refreshToken, refreshed.accessToken, "demo-password"] {
      #expect(!logs.contains(secret), "a secret reached the log")
    }
    observer.cancel()
    await sandbox.stop()
  }

  @Test(
    "A restart (a new manager on the same encrypted store) is logged in as the same user, without a login",
    arguments: TransportKind.allCases)
  func restart(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = try sessionStoreDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let sessions = sandboxSessions(
      on: sandbox, store: try EncryptedFileSecureStore(directory: directory), transport: kind.transport)
    let user = try await sessions.login(email: "demo@keel.dev", password: "demo-password")
    _ = try await HTTPClient().send(.data(SandboxRoute.expireTokens(on: sandbox)))
    _ = try await sessions.me()  // refreshes, and stores the new access token

    let restarted = sandboxSessions(
      on: sandbox, store: try EncryptedFileSecureStore(directory: directory), transport: kind.transport)

    #expect(restarted.state == .loggedIn(user))
    #expect(restarted.currentUser == user)
    #expect(try await restarted.me() == user)
    #expect(try await sandboxCounter("logins", on: sandbox) == 1)
    #expect(try await sandboxCounter("refreshes", on: sandbox) == 1, "the restart uses the refreshed token")
    await sandbox.stop()
  }

  @Test(
    "A revoked refresh token: 10 waiting calls fail, expired is published once, the tokens are wiped",
    arguments: TransportKind.allCases)
  func revokedRefreshToken(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = try sessionStoreDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try EncryptedFileSecureStore(directory: directory)
    let sessions = sandboxSessions(on: sandbox, store: store, transport: kind.transport)
    let user = try await sessions.login(email: "demo@keel.dev", password: "demo-password")
    let states = Recorder<SessionState>()
    let observer = Task { for await state in sessions.states() { states.record(state) } }
    let tokens = try #require(try storedCredentials(in: store))
    // Revoked behind the manager's back, as another device's sign-out or a password change would.
    let session = SandboxSession(access: tokens.accessToken, refresh: tokens.refreshToken)
    _ = try await HTTPClient().send(.data(SandboxRoute.logout(session, on: sandbox)))
    _ = try await HTTPClient().send(.data(SandboxRoute.expireTokens(on: sandbox)))

    let reasons = await failuresOfConcurrentCalls(10) { try await sessions.me() }.map {
      ($0 as? SessionError)?.requestFailure?.kind
    }

    #expect(reasons == Array(repeating: .sessionExpired, count: 10))
    #expect(await eventually { states.elements == [.loggedIn(user), .expired] })
    await settle()
    #expect(states.elements == [.loggedIn(user), .expired], "published once")
    #expect(sessions.state == .expired)
    #expect(try store.data(forKey: SessionManager.storageKey) == nil)
    #expect(try await sandboxCounter("refreshes", on: sandbox) == 1)
    observer.cancel()
    await sandbox.stop()
  }

  @Test(
    "A wrong password is loginRefused (E03), nothing is stored and the state stays loggedOut",
    arguments: TransportKind.allCases)
  func wrongPassword(_ kind: TransportKind) async throws {
    let fixture = try await SessionsOnSandbox.start(over: kind.transport)
    let (sandbox, store, sessions) = (fixture.sandbox, fixture.store, fixture.sessions)

    let error = await #expect(throws: SessionError.self) {
      try await sessions.login(email: "demo@keel.dev", password: "not-the-password")
    }

    #expect(error?.kind == .loginRefused)
    #expect(error?.requestFailure?.serverCode == "E03")
    #expect(sessions.state == .loggedOut)
    #expect(try store.data(forKey: SessionManager.storageKey) == nil)
    #expect(try await sandboxCounter("logins", on: sandbox) == 0)
    await fixture.finish()
  }

  @Test(
    "An access token the server no longer knows (E02) is not refreshed: the call fails with E02 and the session stays",
    arguments: TransportKind.allCases)
  func unknownTokenIsNotRefreshed(_ kind: TransportKind) async throws {
    let fixture = try await SessionsOnSandbox.start(over: kind.transport)
    let (sandbox, sessions) = (fixture.sandbox, fixture.sessions)
    let user = try await sessions.login(email: "demo@keel.dev", password: "demo-password")
    try await sandbox.control.reset()  // the server forgets every session, its counters too; the accounts stay

    let error = await #expect(throws: SessionError.self) { try await sessions.me() }
    #expect(error?.requestFailure?.serverCode == "E02")
    #expect(try await sandbox.control.statistics().requests("POST /v1/auth/refresh") == 0, "no refresh was tried")
    #expect(sessions.state == .loggedIn(user))
    await fixture.finish()
  }

  @Test(
    "A server failing the login (503) is requestFailed with its status and code; nothing is stored; the next login works",
    arguments: TransportKind.allCases)
  func loginServerFailure(_ kind: TransportKind) async throws {
    let fixture = try await SessionsOnSandbox.start(over: kind.transport)
    let (sandbox, store, sessions) = (fixture.sandbox, fixture.store, fixture.sessions)
    try await sandbox.control.addFault(SandboxFault(route: "/v1/auth/login", method: "POST", status: 503, count: 1))

    let error = await #expect(throws: SessionError.self) {
      try await sessions.login(email: "demo@keel.dev", password: "demo-password")
    }
    #expect(error?.kind == .requestFailed)
    #expect(error?.requestFailure?.statusCode == 503)
    #expect(error?.requestFailure?.serverCode == "E503", "the server's own error shape, read")
    #expect(sessions.state == .loggedOut)
    #expect(try store.data(forKey: SessionManager.storageKey) == nil)
    #expect(try await sandboxResponses("POST /v1/auth/login", status: 503, on: sandbox) == 1)

    _ = try await sessions.login(email: "demo@keel.dev", password: "demo-password")
    #expect(try await sandboxCounter("logins", on: sandbox) == 1)
    try await sessions.logout()
    await fixture.finish()
  }

  @Test(
    "Logout with an expired access token refreshes it to sign out on the server, which then refuses the refresh token",
    arguments: TransportKind.allCases)
  func logoutWithExpiredToken(_ kind: TransportKind) async throws {
    let fixture = try await SessionsOnSandbox.start(over: kind.transport)
    let (sandbox, store, sessions) = (fixture.sandbox, fixture.store, fixture.sessions)
    _ = try await sessions.login(email: "demo@keel.dev", password: "demo-password")
    let tokens = try #require(try storedCredentials(in: store))
    try await sandbox.control.expireTokens()

    try await sessions.logout()
    #expect(try await sandboxResponses("POST /v1/auth/logout", status: 401, on: sandbox) == 1, "E05 first")
    #expect(try await sandboxCounter("refreshes", on: sandbox) == 1)
    #expect(try await sandboxResponses("POST /v1/auth/logout", status: 200, on: sandbox) == 1, "then signed out")
    let refusal = await #expect(throws: NetworkError.self) {
      try await HTTPClient(transport: kind.transport, serverErrorDecoders: [.chatBackend]).send(
        .data(SandboxRoute.refresh(tokens.refreshToken, on: sandbox.baseURL)))
    }
    #expect(refusal?.serverError?.code == "E06", "revoked on the server")
    #expect(sessions.state == .loggedOut)
    #expect(try store.data(forKey: SessionManager.storageKey) == nil)
    await fixture.finish()
  }

  @Test(
    "Logout while the server fails (503) still signs out here and says revocationFailed; the server still knows the token",
    arguments: TransportKind.allCases)
  func logoutServerFailure(_ kind: TransportKind) async throws {
    let fixture = try await SessionsOnSandbox.start(over: kind.transport)
    let (sandbox, store, sessions) = (fixture.sandbox, fixture.store, fixture.sessions)
    _ = try await sessions.login(email: "demo@keel.dev", password: "demo-password")
    let tokens = try #require(try storedCredentials(in: store))
    try await sandbox.control.addFault(SandboxFault(route: "/v1/auth/logout", method: "POST", status: 503, count: 1))

    let error = await #expect(throws: SessionError.self) { try await sessions.logout() }
    #expect(error?.kind == .revocationFailed)
    #expect(error?.requestFailure?.statusCode == 503)
    #expect(sessions.state == .loggedOut)
    #expect(try store.data(forKey: SessionManager.storageKey) == nil, "wiped here whatever the server said")
    _ = try await HTTPClient(transport: kind.transport, serverErrorDecoders: [.chatBackend]).send(
      .data(SandboxRoute.refresh(tokens.refreshToken, on: sandbox.baseURL)))  // not revoked: still valid there
    await fixture.finish()
  }

  @Test(
    "Logout after another client signed the session out (access token E05, refresh token E06) still signs out here",
    arguments: TransportKind.allCases)
  func logoutAfterSignedOutElsewhere(_ kind: TransportKind) async throws {
    let fixture = try await SessionsOnSandbox.start(over: kind.transport)
    let (sandbox, store, sessions) = (fixture.sandbox, fixture.store, fixture.sessions)
    _ = try await sessions.login(email: "demo@keel.dev", password: "demo-password")
    let tokens = try #require(try storedCredentials(in: store))
    _ = try await HTTPClient(transport: kind.transport).send(
      .data(SandboxRoute.logout(SandboxSession(access: tokens.accessToken, refresh: tokens.refreshToken), on: sandbox)))

    try await sessions.logout()

    #expect(sessions.state == .loggedOut)
    #expect(try store.data(forKey: SessionManager.storageKey) == nil)
    #expect(try await sandboxResponses("POST /v1/auth/logout", status: 401, on: sandbox) == 1, "E05")
    #expect(try await sandboxResponses("POST /v1/auth/refresh", status: 401, on: sandbox) == 1, "then E06")
    await fixture.finish()
  }

  @Test(
    "A refresh the Sandbox grants only after the logout began brings nothing back: the session stays signed out",
    arguments: TransportKind.allCases)
  func refreshGrantedAfterLogout(_ kind: TransportKind) async throws {
    // The Sandbox holds the refresh for a second of its clock and the logout's first call for two: the refresh is
    // granted while the logout is still on its way, so that its new tokens arrive after this device signed out.
    let serverClock = HoldingClock()
    let sandbox = try await Sandbox.start(
      SandboxConfiguration(
        faults: [
          SandboxFault(route: "/v1/auth/refresh", method: "POST", latency: .seconds(1), count: 1),
          SandboxFault(route: "/v1/auth/logout", method: "POST", latency: .seconds(2), count: 1),
        ],
        clock: serverClock, logLevel: .warning))
    let directory = try sessionStoreDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try EncryptedFileSecureStore(directory: directory)
    let sessions = sandboxSessions(on: sandbox, store: store, transport: kind.transport)
    _ = try await sessions.login(email: "demo@keel.dev", password: "demo-password")
    let tokens = try #require(try storedCredentials(in: store))
    try await sandbox.control.expireTokens()
    let call = TaskProbe { try await sessions.me() }
    #expect(await requestHeld(on: serverClock), "the refresh reached the Sandbox")

    let logout = TaskProbe { try await sessions.logout() }
    #expect(await poll(for: .seconds(30)) { sessions.state == .loggedOut })
    #expect(try store.data(forKey: SessionManager.storageKey) == nil)
    #expect(await poll(for: .seconds(30)) { call.isFinished })
    let failure = try #require(await call.error() as? SessionError)
    #expect(failure.requestFailure?.kind == .sessionExpired, "the waiting call ends with the session")

    await serverClock.advance(by: .seconds(1))
    #expect(
      try await eventsPoll(timeout: .seconds(30)) {
        try await sandboxResponses("POST /v1/auth/refresh", status: 200, on: sandbox) == 1
      }, "the refresh was granted")
    // The refresh's hold is gone, so a sleeper now is the logout's: advancing before it arrived would leave it held.
    #expect(await requestHeld(on: serverClock), "the logout reached the Sandbox")
    await serverClock.advance(by: .seconds(2))
    #expect(await poll(for: .seconds(30)) { logout.isFinished })
    #expect(try store.data(forKey: SessionManager.storageKey) == nil, "the granted tokens were not kept")
    #expect(sessions.state == .loggedOut)
    let refusal = await #expect(throws: NetworkError.self) {
      try await HTTPClient(transport: kind.transport, serverErrorDecoders: [.chatBackend]).send(
        .data(SandboxRoute.refresh(tokens.refreshToken, on: sandbox.baseURL)))
    }
    #expect(refusal?.serverError?.code == "E06", "revoked on the server")
    await sandbox.stop()
  }

  @Test(
    "The profile is the session's: a new nickname and image become the session's user, kept across a refresh and a restart"
  )
  func profile() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = try sessionStoreDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let transport = TransportKind.urlSession.transport
    let sessions = sandboxSessions(
      on: sandbox, store: try EncryptedFileSecureStore(directory: directory), transport: transport)
    await #expect(throws: SessionError.self, "nobody is signed in") { try await sessions.updateNickname("Ada") }
    let user = try await sessions.login(email: "demo@keel.dev", password: "demo-password")
    let states = Recorder<SessionState>()
    let observer = Task { for await state in sessions.states() { states.record(state) } }

    let renamed = try await sessions.updateNickname("  Demo Two  ")
    #expect(renamed.nickname == "Demo Two" && renamed.id == user.id)
    #expect(sessions.currentUser == renamed)
    #expect(await eventually { states.elements.last == .loggedIn(renamed) }, "observers see the new profile")
    let refusal = await #expect(throws: SessionError.self) { try await sessions.updateNickname("   ") }
    #expect(refusal?.kind == .invalidInput)

    let avatar = try pngFile(in: directory, named: "avatar.png", filler: 3)
    let pictured = try await sessions.updateProfileImage(avatar)
    let path = try #require(pictured.profileImage)
    #expect(sessions.currentUser?.profileImage == path && sessions.currentUser?.nickname == "Demo Two")
    let text = directory.appendingPathComponent("notes.png")
    try Data("not an image".utf8).write(to: text)
    let notImage = await #expect(throws: SessionError.self) { try await sessions.updateProfileImage(text) }
    #expect(notImage?.kind == .invalidInput)

    // A refresh keeps the new profile; so does a restart on the same store.
    _ = try await HTTPClient().send(.data(SandboxRoute.expireTokens(on: sandbox)))
    #expect(try await sessions.me() == pictured)
    #expect(sessions.currentUser == pictured)
    // What the secure store kept after the refresh: the refreshed credential did not bring the old profile back.
    let restarted = sandboxSessions(
      on: sandbox, store: try EncryptedFileSecureStore(directory: directory), transport: transport)
    #expect(restarted.currentUser == pictured)
    observer.cancel()
    await sandbox.stop()
  }
}
