import Domain
import Foundation
import Logging
import Networking
import Sandbox
import Testing

/// Calls `start` with a completion handler and waits for the one result it is given.
private func result<Value: Sendable>(
  _ start: (@escaping @Sendable (Result<Value, any Error>) -> Void) -> Void
) async -> Result<Value, any Error> {
  await withCheckedContinuation { continuation in start { continuation.resume(returning: $0) } }
}

/// A fresh, empty data directory.
private func dataDirectory() throws -> URL {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent("keel-facade-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}

/// A manager wired as `SendbirdUserManager(baseURL:dataDirectory:)` wires one, sending through `transport`.
private func sandboxManager(
  on sandbox: RunningSandbox, dataDirectory: URL, transport: any HTTPTransport
) -> SendbirdUserManager {
  let dependencies = Dependencies.live(
    configuration: KeelConfiguration(
      sendbirdBaseURL: sandbox.baseURL, dataDirectory: dataDirectory, transport: transport))
  return SendbirdUserManager(manager: dependencies.users, logger: dependencies.logger)
}

/// REQUIREMENTS U1–U13 end to end: the Sendbird-compatible facade against a Sandbox, in real time.
@Suite("SendbirdUserManager against the Sandbox", .timeLimit(.minutes(3)))
struct SendbirdUserManagerIntegrationTests {
  @Test(
    "Create, batch create in order, update, get (cache and server) and exact nickname search",
    arguments: TransportKind.allCases)
  func endToEnd(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    defer { Task { await sandbox.stop() } }
    let directory = try dataDirectory()
    let manager = sandboxManager(on: sandbox, dataDirectory: directory, transport: kind.transport)
    manager.initApplication(applicationId: "app-1", apiToken: "integration")

    // GIVEN a user and a batch, created through the facade
    let alice = try await result {
      manager.createUser(params: UserCreationParams(userId: "alice", nickname: "Ann"), completionHandler: $0)
    }.get()
    #expect(alice == SBUser(userId: "alice", nickname: "Ann", profileURL: ""))
    let batch = ["carol", "ann/2", "bob"].map {
      UserCreationParams(userId: $0, nickname: $0 == "ann/2" ? "Ann" : "Anna")
    }
    let created = try await result { manager.createUsers(params: batch, completionHandler: $0) }.get()
    #expect(created.map(\.userId) == ["carol", "ann/2", "bob"], "input order kept")

    // WHEN alice is renamed and looked up
    let renamed = try await result {
      manager.updateUser(params: UserUpdateParams(userId: "bob", nickname: "Ann"), completionHandler: $0)
    }.get()
    #expect(renamed.nickname == "Ann")
    #expect(manager.userStorage.getUser(for: "bob")?.nickname == "Ann", "the cache follows the update")

    // THEN an exact search finds exactly the three named Ann, not Anna
    let anns = try await result { manager.getUsers(nicknameMatches: "Ann", completionHandler: $0) }.get()
    #expect(Set(anns.map(\.userId)) == ["alice", "ann/2", "bob"])

    // AND a second manager with its own (empty) cache reads alice from the server, then from its cache
    let other = sandboxManager(on: sandbox, dataDirectory: try dataDirectory(), transport: kind.transport)
    other.initApplication(applicationId: "app-1", apiToken: "integration")
    let read = try await result { other.getUser(userId: "alice", completionHandler: $0) }.get()
    #expect(read == alice)
    _ = try await result { other.getUser(userId: "alice", completionHandler: $0) }.get()
    #expect(try await sandboxResponses("GET /v3/users/:user_id", status: 200, on: sandbox) == 1)

    // AND a duplicate is the server's typed error
    let duplicate = await result {
      manager.createUser(params: UserCreationParams(userId: "alice", nickname: "A"), completionHandler: $0)
    }
    let refusal = #expect(throws: UserManagerError.self) { try duplicate.get() }
    #expect(refusal?.requestFailure?.serverCode == "400202")
  }

  @Test(
    "A batch the server answers in part: the users created, and each failed input with the server's own error, in order",
    arguments: TransportKind.allCases)
  func partialBatch(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    defer { Task { await sandbox.stop() } }
    let manager = sandboxManager(on: sandbox, dataDirectory: try dataDirectory(), transport: kind.transport)
    manager.initApplication(applicationId: "app-1", apiToken: "integration")
    // "b" exists already, and the server fails the batch's first creation (an injected 500).
    _ = try await HTTPClient(transport: kind.transport).send(.data(SandboxUsers.create("b", on: sandbox)))
    try await sandbox.control.addFault(SandboxFault(route: "/v3/users", method: "POST", status: 500, count: 1))

    let outcome = await result {
      manager.createUsers(
        params: ["d", "a", "b", "c"].map { UserCreationParams(userId: $0, nickname: "N") }, completionHandler: $0)
    }
    let error = try #require(#expect(throws: UserManagerError.self) { try outcome.get() })
    #expect(error.kind == .partialFailure)
    #expect(error.created.map(\.userId) == ["a", "c"])
    #expect(error.failures.map(\.index) == [0, 2])
    #expect(error.failures.map(\.error.requestFailure?.serverCode) == ["500901", "400202"])
    #expect(Set(manager.userStorage.getUsers().map(\.userId)) == ["a", "c"])
    #expect(try await sandboxResponses("POST /v3/users", status: 200, on: sandbox) == 3, "b, then a and c")
  }

  @Test(
    "11 createUser calls at once in real time: exactly 10 are sent and succeed, 1 fails as rate limited (U8)",
    arguments: TransportKind.allCases)
  func elevenAtOnce(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    defer { Task { await sandbox.stop() } }
    let manager = sandboxManager(on: sandbox, dataDirectory: try dataDirectory(), transport: kind.transport)
    manager.initApplication(applicationId: "app-1", apiToken: "integration")

    let results = await withTaskGroup(of: Result<SBUser, any Error>.self) { group in
      for index in 0..<11 {
        group.addTask {
          await result {
            manager.createUser(params: UserCreationParams(userId: "u\(index)", nickname: "N"), completionHandler: $0)
          }
        }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }

    let failures = results.compactMap { result -> UserManagerError? in
      if case .failure(let error) = result { return error as? UserManagerError }
      return nil
    }
    #expect(results.count == 11)
    #expect(failures.map(\.requestFailure?.kind) == [.rateLimited])
    #expect(try await sandboxResponses("POST /v3/users", status: 200, on: sandbox) == 10)
    #expect(manager.userStorage.getUsers().count == 10)
  }

  @Test(
    "The network client sends the Sendbird requests to the Sandbox through the same manager, and refuses others",
    arguments: TransportKind.allCases)
  func networkClient(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    defer { Task { await sandbox.stop() } }
    let manager = sandboxManager(on: sandbox, dataDirectory: try dataDirectory(), transport: kind.transport)
    manager.initApplication(applicationId: "app-client", apiToken: "integration")
    let client = manager.networkClient

    let created = try await result {
      client.request(
        request: CreateUserRequest(params: UserCreationParams(userId: "bo", nickname: "Bo")), completionHandler: $0)
    }.get()
    let read = try await result { client.request(request: GetUserRequest(userId: "bo"), completionHandler: $0) }.get()
    let found = try await result {
      client.request(request: GetUsersRequest(nickname: "Bo"), completionHandler: $0)
    }.get()
    #expect(created == SBUser(userId: "bo", nickname: "Bo", profileURL: "") && read == created && found == [created])

    struct Foreign: Request { typealias Response = Int }
    let foreign = await result { client.request(request: Foreign(), completionHandler: $0) }
    #expect(throws: UserManagerError.self) { try foreign.get() }
    let statistics = try await sandbox.control.statistics()
    #expect(
      statistics.requests("POST /v3/users") + statistics.requests("GET /v3/users/:user_id")
        + statistics.requests("GET /v3/users") == 3, "one request each, none for the foreign one")
  }
}
