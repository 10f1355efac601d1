import Clocks
import Domain
import Foundation
import Logging
import Networking
import RateLimiting
import Sandbox
import TestSupport
import Testing

/// REQUIREMENTS U2, U4, U13 over real HTTP: the user manager's limits, its logs and an application switch, against the
/// Sandbox's Platform API, on each transport.
@Suite("UserManager against the Sandbox", .timeLimit(.minutes(3)))
struct UserManagerIntegrationTests {
  /// A manager on `sandbox` with its own empty cache, its calls paced as the Platform API's limit asks.
  private func manager(
    on sandbox: RunningSandbox, _ kind: TransportKind, store: UserStore = UserStore(),
    logger: Logger = Logger(label: "keel.tests.users") { _ in SwiftLogNoOpLogHandler() }
  ) -> UserManager {
    UserManager(
      transport: kind.transport, limiter: LeakyBucket.userManager(clock: ContinuousClock()), store: store,
      baseURL: sandbox.baseURL, clock: ContinuousClock(), logger: logger)
  }

  @Test(
    "The Sandbox takes what validation lets through: 80-character ids and nicknames, 2,048-character URLs, any letters",
    arguments: TransportKind.allCases)
  func limitsAccepted(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let manager = manager(on: sandbox, kind)
    try manager.initApplication(applicationId: "app-limits", apiToken: "integration")
    let url = "https://x.test/" + String(repeating: "p", count: 2_048 - 15)
    let longest = UserCreationParams(
      userId: String(repeating: "é", count: 80), nickname: String(repeating: "n", count: 80), profileURL: url)
    let printable = UserCreationParams(
      userId: "zoë-1", nickname: "Zoë 🚀 O'Brien, Jr.", profileURL: "https://x.test/a b")

    let created = try await manager.createUsers(params: [longest, printable])

    #expect(created.map(\.userId) == [longest.userId, printable.userId])
    #expect(created.first?.profileURL == url)
    let read = try await self.manager(on: sandbox, kind).initialized("app-limits").getUser(userId: printable.userId)
    #expect(read.nickname == "Zoë 🚀 O'Brien, Jr.", "as the server keeps it")
    await sandbox.stop()
  }

  @Test(
    "Debug logs name each request to the Sandbox and never its API token", arguments: TransportKind.allCases)
  func tokenNeverLogged(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let logs = LogCapture()
    let manager = manager(on: sandbox, kind, logger: logs.logger(level: .trace))
    let token = "Secret-Api-Token-7f3a"
    try manager.initApplication(applicationId: "app-logs", apiToken: token)

    _ = try await manager.createUser(params: UserCreationParams(userId: "alice", nickname: "Alice"))

    #expect(logs.messages(at: .debug).contains { $0.contains("POST") && $0.contains("/v3/users") }, "\(logs.text)")
    #expect(!logs.text.contains(token) && !logs.text.contains("7f3a"))
    #expect(
      try await sandboxResponses("POST /v3/users", status: 200, on: sandbox) == 1, "the token did go, in the header")
    await sandbox.stop()
  }

  @Test(
    "An answer the Sandbox gives after the app switched application is returned but not cached for the new one",
    arguments: TransportKind.allCases)
  func lateAnswerAfterASwitch(_ kind: TransportKind) async throws {
    let serverClock = HoldingClock()
    let sandbox = try await Sandbox.start(
      SandboxConfiguration(
        faults: [SandboxFault(route: "/v3/users", method: "POST", latency: .seconds(1), count: 1)],
        clock: serverClock, logLevel: .warning))
    let store = UserStore()
    let manager = manager(on: sandbox, kind, store: store)
    try manager.initApplication(applicationId: "app-A", apiToken: "integration")
    let creating = TaskProbe {
      try await manager.createUser(params: UserCreationParams(userId: "alice", nickname: "Alice"))
    }
    #expect(await requestHeld(on: serverClock), "the creation reached the Sandbox")

    try manager.initApplication(applicationId: "app-B", apiToken: "integration")
    await serverClock.advance(by: .seconds(1))
    #expect(await poll(for: .seconds(30)) { creating.isFinished })

    #expect(try creating.result?.get().userId == "alice")
    #expect(store.count == 0 && store.user(id: "alice") == nil, "app-A's user is not passed off as app-B's")
    await sandbox.stop()
  }
}

extension UserManager {
  /// This manager, on `applicationId`.
  fileprivate func initialized(_ applicationId: String) throws -> UserManager {
    try initApplication(applicationId: applicationId, apiToken: "integration")
    return self
  }
}
