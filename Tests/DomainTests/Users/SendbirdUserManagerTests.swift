import Dispatch
import Foundation
import KeelConcurrency
import TestSupport
import Testing

@testable import Domain

/// REQUIREMENTS U9, U12: the callback surface over the same manager.
/// `SendbirdUserManagerIntegrationTests` drives this facade's callbacks against the Sandbox. The callback queue, the
/// API's shape and calls refused before sending need no server; the network client is tested there too.
@Suite(.timeLimit(.minutes(10))) struct SendbirdUserManagerTests {
  private func facade() throws -> (SendbirdUserManager, UsersHarness) {
    let harness = UsersHarness()
    let facade = SendbirdUserManager(manager: harness.manager)
    facade.initApplication(applicationId: "app-1", apiToken: "token")
    return (facade, harness)
  }

  @Test("Callbacks arrive on a background queue, one at a time, while the caller blocks its own thread (U9)")
  func backgroundSerialCallbacks() async throws {
    let (facade, _) = try facade()
    for index in 0..<20 { facade.userStorage.upsertUser(SBUser(userId: "u\(index)", nickname: "N")) }
    // The caller is a plain thread that blocks until every callback has come: callbacks must not need it.
    let observed = await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        Thread.current.name = "u9-caller"
        let done = DispatchSemaphore(value: 0)
        let overlap = Locked((running: 0, most: 0, onCaller: 0, started: 0))
        let secondStarted = DispatchSemaphore(value: 0)
        for index in 0..<20 {
          facade.getUser(userId: "u\(index)") { _ in
            let onCaller = Thread.current.name == "u9-caller"
            let isFirst = overlap.withLock {
              $0.running += 1
              $0.started += 1
              $0.most = max($0.most, $0.running)
              if onCaller { $0.onCaller += 1 }
              return $0.started == 1
            }
            // The first callback holds on until another one starts, or 0.5 s pass: on a serial queue none can.
            if isFirst { _ = secondStarted.wait(timeout: .now() + 0.5) } else { secondStarted.signal() }
            overlap.withLock { $0.running -= 1 }
            done.signal()
          }
        }
        // A generous deadline: a deadlock never ends, while a loaded machine (TSan, tests in parallel) may take its
        // time to schedule the calls; CI once needed more than 10 s.
        let deadline = DispatchTime.now() + 120
        let arrived = (0..<20).allSatisfy { _ in done.wait(timeout: deadline) == .success }
        continuation.resume(returning: (arrived, overlap.withLock { ($0.most, $0.onCaller) }))
      }
    }
    #expect(observed.0, "every callback arrived while the caller was blocked")
    #expect(observed.1.0 == 1, "never two callbacks at once")
    #expect(observed.1.1 == 0, "never on the caller's thread")
  }

  @Test("createUser with a nil handler still creates and caches the user")
  func nilHandler() async throws {
    let (facade, harness) = try facade()
    facade.createUser(params: UserCreationParams(userId: "alice", nickname: "Alice"), completionHandler: nil)
    #expect(await eventually { facade.userStorage.getUser(for: "alice") != nil })
    #expect(harness.server.sent.count == 1)
  }

  @Test("Results arrive as SBUser; errors as the same typed errors")
  func results() async throws {
    let (facade, _) = try facade()
    let created = await withCheckedContinuation { continuation in
      facade.createUser(params: UserCreationParams(userId: "a", nickname: "A", profileURL: "p")) {
        continuation.resume(returning: $0)
      }
    }
    #expect(try created.get() == SBUser(userId: "a", nickname: "A", profileURL: "p"))
    let refused = await withCheckedContinuation { continuation in
      facade.getUsers(nicknameMatches: " ") { continuation.resume(returning: $0) }
    }
    #expect(throws: UserManagerError.self) { try refused.get() }
  }

  @Test("The network client sends SendbirdRequests through the same manager, and refuses other requests")
  func networkClient() async throws {
    let (facade, harness) = try facade()
    harness.server.seed("bob", nickname: "Bob")
    let user = await withCheckedContinuation { continuation in
      facade.networkClient.request(request: GetUserRequest(userId: "bob")) { continuation.resume(returning: $0) }
    }
    #expect(try user.get() == SBUser(userId: "bob", nickname: "Bob", profileURL: ""))

    struct Foreign: Request { typealias Response = Int }
    let foreign = await withCheckedContinuation { continuation in
      facade.networkClient.request(request: Foreign()) { continuation.resume(returning: $0) }
    }
    #expect(throws: UserManagerError.self) { try foreign.get() }
    #expect(harness.server.sent.count == 1)
  }

  @Test("After a failed initApplication every call fails with its error, not with the previous application")
  func failedInit() async throws {
    let (facade, harness) = try facade()
    facade.initApplication(applicationId: "", apiToken: "token")
    let refused = await withCheckedContinuation { continuation in
      facade.createUser(params: UserCreationParams(userId: "a", nickname: "A")) { continuation.resume(returning: $0) }
    }
    #expect(throws: UserManagerError.self) { try refused.get() }
    #expect(harness.server.sent.isEmpty)

    facade.initApplication(applicationId: "app-2", apiToken: "token")
    let created = await withCheckedContinuation { continuation in
      facade.createUser(params: UserCreationParams(userId: "a", nickname: "A")) { continuation.resume(returning: $0) }
    }
    #expect(try created.get().userId == "a")
  }

  @Test("After a failed initApplication the network client does not reach the previous application either")
  func failedInitNetworkClient() async throws {
    let (facade, harness) = try facade()
    facade.initApplication(applicationId: "", apiToken: "token")
    let result = await withCheckedContinuation { continuation in
      facade.networkClient.request(request: GetUserRequest(userId: "bob")) { continuation.resume(returning: $0) }
    }
    #expect((try? result.get()) == nil)
    #expect(harness.server.sent.isEmpty)
  }

  @Test("Requests sent through the network client are checked like the manager's own calls (U13)")
  func networkClientValidates() async throws {
    let (facade, harness) = try facade()
    let requests: [any SendbirdRequest] = [
      GetUserRequest(userId: ""), GetUsersRequest(nickname: " "), GetUsersRequest(nickname: "Ann", limit: 500),
      CreateUserRequest(params: UserCreationParams(userId: String(repeating: "x", count: 81), nickname: "n")),
    ]
    for request in requests {
      let outcome = await Self.send(request, through: facade.networkClient)
      #expect(throws: UserManagerError.self) { try outcome.get() }
    }
    #expect(harness.server.sent.isEmpty)
  }

  private static func send<R: SendbirdRequest>(
    _ request: R, through client: any SBNetworkClient
  ) async -> Result<Void, any Error> {
    await withCheckedContinuation { continuation in
      client.request(request: request) { continuation.resume(returning: $0.map { _ in () }) }
    }
  }

  @Test("The surface has the exact shape users code against (U12)")
  func surface() {
    let manager: any SBUserManager = SendbirdUserManager(manager: UsersHarness().manager)
    let _: any SBNetworkClient = manager.networkClient
    let _: any SBUserStorage = manager.userStorage
    let _: UserResult = .success(SBUser(userId: "a"))
    let _: UsersResult = .success([])
    let _ = UserCreationParams(userId: "a", nickname: "n", profileURL: nil)
    let _ = UserUpdateParams(userId: "a", nickname: nil, profileURL: nil)
  }
}
