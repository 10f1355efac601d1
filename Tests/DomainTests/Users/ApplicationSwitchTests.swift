import Foundation
import Persistence
import TestSupport
import Testing

@testable import Domain

/// REQUIREMENTS U2: another application than last time wipes the cache first, across restarts too.
@Suite struct ApplicationSwitchTests {
  /// A manager as a fresh process would build it: a store and settings read back from `directory`.
  private func restart(in directory: URL, app: String) throws -> UsersHarness {
    try UsersHarness.initialized(
      app, store: UserStore(file: directory.appendingPathComponent("users.json")),
      settings: FileKeyValueStore(url: directory.appendingPathComponent("settings.json")))
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
    #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("users.json").path))

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

  @Test("An invalid application keeps the previous one in place")
  func invalidKeepsPrevious() throws {
    let harness = try UsersHarness.initialized("app-A")
    #expect(throws: UserManagerError.self) { try harness.manager.initApplication(applicationId: "", apiToken: "t") }
    #expect(harness.manager.application?.applicationId == "app-A")
  }
}
