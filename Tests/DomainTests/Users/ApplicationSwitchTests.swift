import Foundation
import TestSupport
import Testing

@testable import Domain

/// REQUIREMENTS U2: another application than last time wipes the cache first, across restarts too.
/// Which application owns the cache is the device's own state, which the server takes no part in; an answer the
/// Sandbox holds back until after the switch is in `UserManagerIntegrationTests`.
@Suite(.timeLimit(.minutes(10))) struct ApplicationSwitchTests {
  /// A manager as a fresh process would build it: its cache read back from `directory`.
  private func restart(in directory: URL, app: String) throws -> UsersHarness {
    try UsersHarness.initialized(app, store: UserStore(file: directory.appendingPathComponent("users.json")))
  }

  @Test("The same application after a restart keeps its cache: getUser is a cache hit")
  func sameApplicationAcrossRestart() async throws {
    let directory = try temporaryDirectory()
    let first = try restart(in: directory, app: "app-A")
    _ = try await first.manager.createUser(params: UserCreationParams(userId: "alice", nickname: "Alice"))

    let second = try restart(in: directory, app: "app-A")
    #expect(try await second.manager.getUser(userId: "alice").nickname == "Alice")
    #expect(second.server.sent.isEmpty)
  }

  @Test("Another application after a restart starts empty, and so does the first one after it")
  func otherApplicationAcrossRestart() async throws {
    let directory = try temporaryDirectory()
    let first = try restart(in: directory, app: "app-A")
    _ = try await first.manager.createUser(params: UserCreationParams(userId: "alice", nickname: "Alice"))

    let second = try restart(in: directory, app: "app-B")
    #expect(second.store.count == 0)
    #expect(UserStore(file: directory.appendingPathComponent("users.json")).count == 0, "deleted from the file too")

    let third = try restart(in: directory, app: "app-A")
    #expect(third.store.count == 0, "app-A's data was deleted when app-B came")
  }

  @Test("Switching application in one run wipes the cache; the same id again does not")
  func switchInOneRun() async throws {
    let harness = try UsersHarness.initialized("app-A")
    harness.store.upsert(User(userId: "alice"))
    try harness.manager.initApplication(applicationId: "app-A", apiToken: "new-token")
    #expect(harness.store.count == 1)
    try harness.manager.initApplication(applicationId: "app-B", apiToken: "token")
    #expect(harness.store.count == 0)
    #expect(harness.manager.application?.applicationId == "app-B")
  }

  @Test("A response of the previous application that arrives after the switch is answered but not cached")
  func lateResponseNotCached() async throws {
    let harness = try UsersHarness.initialized("app-A")
    harness.server.gate.close()
    let probe = TaskProbe {
      try await harness.manager.createUser(params: UserCreationParams(userId: "alice", nickname: "Alice"))
    }
    #expect(await eventually { harness.server.gate.waitingCount == 1 })
    try harness.manager.initApplication(applicationId: "app-B", apiToken: "token")
    harness.server.gate.open()
    #expect(await probe.value()?.userId == "alice")
    #expect(harness.store.count == 0)
  }

  @Test("Two managers on one directory: the file never passes one application's users off as another's")
  func twoManagersOneDirectory() async throws {
    // GIVEN two managers on the same directory, the first on app-A, then the second on app-B
    let directory = try temporaryDirectory()
    let first = try restart(in: directory, app: "app-A")
    _ = try restart(in: directory, app: "app-B")
    // WHEN the first, still on app-A, caches a user (and so rewrites the file last)
    _ = try await first.manager.createUser(params: UserCreationParams(userId: "alice", nickname: "Alice"))
    // THEN the next start on app-B does not see app-A's user
    let next = try restart(in: directory, app: "app-B")
    #expect(next.store.count == 0)
    #expect(next.store.applicationId == "app-B")
  }

  @Test("Users stored before the first initApplication are adopted, not deleted")
  func adoptedBeforeFirstClaim() throws {
    let store = UserStore()
    store.upsert(User(userId: "alice"))
    _ = try UsersHarness.initialized("app-A", store: store)
    #expect(store.count == 1)
    #expect(store.applicationId == "app-A")
  }

  @Test("An invalid application keeps the previous one in place")
  func invalidKeepsPrevious() throws {
    let harness = try UsersHarness.initialized("app-A")
    #expect(throws: UserManagerError.self) { try harness.manager.initApplication(applicationId: "", apiToken: "t") }
    #expect(harness.manager.application?.applicationId == "app-A")
  }
}
