import Foundation
import Logging
import Networking
import Persistence
import TestSupport
import Testing

@testable import Domain

/// REQUIREMENTS U3–U8, U10, U11, U13: the user manager against an in-memory Platform API, on a test clock.
/// `SendbirdUserManagerIntegrationTests` shows create, batch, update, cache-first get, exact search, a partial batch
/// and the eleventh call refused against the Sandbox; `UserManagerIntegrationTests`, the token kept out of the logs.
/// Only here: the exact second each request goes (a test clock) and the bodies and queries sent, which the Sandbox
/// does not record.
@Suite(.timeLimit(.minutes(10))) struct UserManagerTests {
  @Test("createUser sends POST /v3/users with the token and snake_case body, then caches the user (U3)")
  func createUser() async throws {
    let harness = try UsersHarness.initialized()
    let user = try await harness.manager.createUser(
      params: UserCreationParams(userId: "alice", nickname: "Alice", profileURL: "https://x.test/a.png"))
    #expect(user == User(userId: "alice", nickname: "Alice", profileURL: "https://x.test/a.png"))
    let sent = try #require(harness.server.sent.first)
    #expect(sent.method == "POST" && sent.path == "/v3/users")
    #expect(sent.apiToken == "token-app-1")
    #expect(sent.body == ["user_id": "alice", "nickname": "Alice", "profile_url": "https://x.test/a.png"])
    #expect(harness.store.user(id: "alice") == user)
  }

  @Test("A user the server refuses is not cached, and the error carries the server's code (U3, U10)")
  func refusedNotCached() async throws {
    let harness = try UsersHarness.initialized()
    harness.server.seed("alice", nickname: "Old")
    let error = await #expect(throws: UserManagerError.self) {
      _ = try await harness.manager.createUser(params: UserCreationParams(userId: "alice", nickname: "Alice"))
    }
    #expect(error?.kind == .requestFailed)
    #expect(error?.requestFailure?.kind == .server)
    #expect(error?.requestFailure?.serverCode == "400202")
    #expect(error?.requestFailure?.underlying is NetworkError, "the HTTP client's own error is kept")
    #expect(harness.store.user(id: "alice") == nil)
  }

  @Test("createUsers sends one per second in input order and answers in input order (U4)")
  func batchPacedAndOrdered() async throws {
    let harness = try UsersHarness.initialized()
    let ids = ["e", "a", "d", "b", "c"]
    let probe = TaskProbe {
      try await harness.manager.createUsers(params: ids.map { UserCreationParams(userId: $0, nickname: "N") })
    }
    #expect(await harness.advance { probe.isFinished })
    let users = try #require(await probe.value())
    #expect(users.map(\.userId) == ids)
    #expect(harness.server.sent.map { $0.body["user_id"] } == ids)
    #expect(harness.server.sent.map(\.milliseconds) == [0, 1_000, 2_000, 3_000, 4_000])
    #expect(harness.store.users().map(\.userId) == ids)
  }

  @Test("A partial failure carries the created users and each failed input with its error; created ones are cached")
  func partialFailure() async throws {
    let harness = try UsersHarness.initialized()
    harness.server.seed("b", nickname: "Taken")
    harness.server.fail("d", status: 500, code: 500901)
    let params = ["a", "b", "c", "d"].map { UserCreationParams(userId: $0, nickname: "N") }
    let probe = TaskProbe { try await harness.manager.createUsers(params: params) }
    #expect(await harness.advance { probe.isFinished })

    let error = try #require(await probe.error() as? UserManagerError)
    #expect(error.kind == .partialFailure)
    #expect(error.created.map(\.userId) == ["a", "c"])
    #expect(error.failures.map(\.index) == [1, 3])
    #expect(error.failures.map(\.params.userId) == ["b", "d"])
    #expect(error.failures[0].error.requestFailure?.serverCode == "400202")
    #expect(error.failures[1].error.requestFailure?.statusCode == 500)
    #expect(harness.store.users().map(\.userId) == ["a", "c"])
  }

  @Test("createUsers of nothing answers nothing and sends nothing")
  func emptyBatch() async throws {
    let harness = try UsersHarness.initialized()
    #expect(try await harness.manager.createUsers(params: []).isEmpty)
    #expect(harness.server.sent.isEmpty)
  }

  @Test("11 createUser calls at once: exactly 10 are sent and succeed, 1 fails at once as rate limited (U8)")
  func elevenAtOnce() async throws {
    let harness = try UsersHarness.initialized()
    let probes = (0..<11).map { index in
      TaskProbe { try await harness.manager.createUser(params: UserCreationParams(userId: "u\(index)", nickname: "N")) }
    }
    // THEN one fails before the clock moves, without being sent
    #expect(await eventually { probes.filter(\.isFinished).count == 2 })
    #expect(harness.server.sent.count == 1)
    #expect(await harness.advance { probes.allSatisfy(\.isFinished) })

    var refused: [UserManagerError] = []
    for probe in probes {
      if let error = await probe.error() { refused.append(try #require(error as? UserManagerError)) }
    }
    #expect(refused.map(\.requestFailure?.kind) == [.rateLimited])
    #expect(harness.server.sent.count == 10)
    #expect(harness.server.sent.map(\.milliseconds) == (0..<10).map { Int64($0) * 1_000 })
    #expect(harness.store.count == 10)
  }

  @Test("updateUser sends PUT with only the given fields, then updates the cache (U5)")
  func updateUser() async throws {
    let harness = try UsersHarness.initialized()
    harness.server.seed("alice", nickname: "Old")
    harness.store.upsert(User(userId: "alice", nickname: "Old", profileURL: ""))
    let updated = try await harness.manager.updateUser(params: UserUpdateParams(userId: "alice", nickname: "New"))
    #expect(updated.nickname == "New")
    let sent = try #require(harness.server.sent.first)
    #expect(sent.method == "PUT" && sent.path == "/v3/users/alice")
    #expect(sent.body == ["nickname": "New"])
    #expect(harness.store.user(id: "alice")?.nickname == "New")
  }

  @Test("getUser reads the cache first; on a miss it asks the server once, then the cache answers (U6)")
  func getUserCacheFirst() async throws {
    let harness = try UsersHarness.initialized()
    harness.server.seed("bob", nickname: "Bob")
    harness.store.upsert(User(userId: "alice", nickname: "Alice"))

    #expect(try await harness.manager.getUser(userId: "alice").nickname == "Alice")
    #expect(harness.server.sent.isEmpty, "a cache hit sends nothing")

    #expect(try await harness.manager.getUser(userId: "bob").nickname == "Bob")
    let probe = TaskProbe { try await harness.manager.getUser(userId: "bob") }
    #expect(try #require(await probe.value()).nickname == "Bob")
    #expect(harness.server.sent.map(\.path) == ["/v3/users/bob"])
  }

  @Test("getUsers(nicknameMatches:) asks for the exact nickname with limit 100 and caches the answer (U7)")
  func nicknameSearch() async throws {
    let harness = try UsersHarness.initialized()
    harness.server.seed("a1", nickname: "Ann")
    harness.server.seed("a2", nickname: "Anna")
    harness.server.seed("a3", nickname: "Ann")
    let users = try await harness.manager.getUsers(nicknameMatches: "Ann")
    #expect(users.map(\.userId) == ["a1", "a3"])
    let query = try #require(harness.server.sent.first?.query)
    #expect(query.contains("nickname=Ann") && query.contains("limit=100"))
    #expect(harness.store.users(nickname: "Ann").map(\.userId) == ["a1", "a3"])
  }

  @Test("Ids are percent-encoded in paths (U13)")
  func percentEncodedIds() async throws {
    let harness = try UsersHarness.initialized()
    harness.server.seed("ana/maría?#1", nickname: "Ana")
    #expect(try await harness.manager.getUser(userId: "ana/maría?#1").nickname == "Ana")
    #expect(harness.server.sent.first?.path == "/v3/users/ana%2Fmar%C3%ADa%3F%231")
  }

  @Test("Requests and responses are logged at debug, and the API token never appears (U11)")
  func loggingRedacted() async throws {
    let logs = LogCapture()
    let harness = try UsersHarness.initialized(logger: logs.logger(level: .debug))
    _ = try await harness.manager.createUser(params: UserCreationParams(userId: "alice", nickname: "Alice"))
    #expect(logs.messages(at: .debug).contains { $0.contains("POST") && $0.contains("/v3/users") })
    #expect(!logs.text.contains("token-app-1"))
  }
}
