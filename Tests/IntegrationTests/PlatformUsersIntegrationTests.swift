import Domain
import Foundation
import Logging
import Networking
import Sandbox
import Testing

/// A minimal router for the Sendbird users API, for these tests (the Domain issue writes the real `UsersRouter`).
struct SandboxUsers: Endpoint {
  var baseURL: URL
  var path: EndpointPath
  var method: HTTPMethod
  var body: HTTPBody = .empty
  var headers: [String: String] { ["Api-Token": "integration"] }

  static func create(_ id: String, on sandbox: RunningSandbox) -> SandboxUsers {
    SandboxUsers(
      baseURL: sandbox.baseURL, path: "/v3/users", method: .post,
      body: .json(["user_id": id, "nickname": "N", "profile_url": ""]))
  }

  static func get(_ id: String, on sandbox: RunningSandbox) -> SandboxUsers {
    SandboxUsers(baseURL: sandbox.baseURL, path: ["v3", "users", id], method: .get)
  }
}

struct PlatformUser: Decodable, Equatable {
  let userID: String
  let nickname: String

  enum CodingKeys: String, CodingKey {
    case userID = "user_id"
    case nickname
  }
}

/// REQUIREMENTS A2, A3, U10, U13 over real HTTP: the client against a Sandbox on 127.0.0.1.
@Suite("Networking against the Sandbox", .timeLimit(.minutes(3)))
struct PlatformUsersIntegrationTests {
  @Test(
    "A user is created and read back; an id with reserved characters survives the path",
    arguments: TransportKind.allCases)
  func roundTrip(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let client = HTTPClient(transport: kind.transport)
    let id = "ana/maría?#1"
    let created = try await client.send(APIRequest<PlatformUser>.json(SandboxUsers.create(id, on: sandbox)))
    let read = try await client.send(APIRequest<PlatformUser>.json(SandboxUsers.get(id, on: sandbox)))
    #expect(created == PlatformUser(userID: id, nickname: "N"))
    #expect(read == created)
    await sandbox.stop()
  }

  @Test(
    "A Sendbird 400201 arrives as the decoded server error with its code and message", arguments: TransportKind.allCases
  )
  func notFound(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let error = await #expect(throws: NetworkError.self) {
      try await HTTPClient(transport: kind.transport, serverErrorDecoders: [.sendbird]).send(
        APIRequest<PlatformUser>.json(SandboxUsers.get("nobody", on: sandbox)))
    }
    #expect(error?.kind == .server)
    #expect(error?.statusCode == 400)
    #expect(error?.serverError?.code == "400201")
    #expect(error?.serverError?.message == #""User" not found."#)
    await sandbox.stop()
  }

  @Test("A stopped server is a transport error", arguments: TransportKind.allCases)
  func connectionRefused(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    await sandbox.stop()
    let error = await #expect(throws: NetworkError.self) {
      try await HTTPClient(transport: kind.transport).send(.data(SandboxUsers.get("x", on: sandbox)))
    }
    #expect(error?.kind == .transport)
  }
}
