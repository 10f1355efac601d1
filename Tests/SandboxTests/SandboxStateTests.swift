import Clocks
import Foundation
import Logging
import Sandbox
import Testing

/// `SandboxConfiguration.stateDirectory`: users and sessions outlive the Sandbox, as the CLI's embedded one needs.
@Suite("Sandbox state kept between runs", .timeLimit(.minutes(3)))
struct SandboxStateTests {
  @Test(
    "Users and sessions survive a restart on the same state directory: an expired token stays expired, its refresh token works"
  )
  func restart() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-state-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let configuration = SandboxConfiguration(logLevel: .warning, stateDirectory: directory)

    // GIVEN a Sandbox that created a user, signed someone in, and expired their access token
    let tokens = try await withSandbox(configuration) { client in
      #expect(try await client.createUser("alice", nickname: "Alice").status == 200)
      let login = try await client.send(
        "POST", "/v1/auth/login", json: ["email": "demo@keel.dev", "password": "demo-password"])
      let access = try #require(login.json["accessToken"] as? String)
      let refresh = try #require(login.json["refreshToken"] as? String)
      let first = try await client.send("GET", "/v1/me", headers: ["Authorization": "Bearer \(access)"])
      #expect(first.status == 200)
      #expect(try await client.send("POST", "/_sandbox/expire-tokens").status == 200)
      return (access, refresh)
    }

    // WHEN another Sandbox starts on the same directory
    try await withSandbox(configuration) { client in
      // THEN the user is there, the expired access token is still expired, and the refresh token still works
      let alice = try await client.send("GET", "/v3/users/alice")
      #expect(alice.status == 200)
      #expect(alice.json["nickname"] as? String == "Alice")
      let me = try await client.send("GET", "/v1/me", headers: ["Authorization": "Bearer \(tokens.0)"])
      #expect(me.json["errorCode"] as? String == "E05")
      let refreshed = try await client.send("POST", "/v1/auth/refresh", headers: ["RefreshToken": tokens.1])
      #expect(refreshed.status == 200)
    }

    // AND a Sandbox without a state directory starts empty
    try await withSandbox(SandboxConfiguration(logLevel: .warning)) { client in
      let alice = try await client.send("GET", "/v3/users/alice")
      #expect(alice.status == 400)
    }
  }

  @Test("A state file that cannot be read is set aside, not overwritten, and the Sandbox starts empty")
  func unreadableState() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-state-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let file = directory.appendingPathComponent("sandbox-state.json")
    try Data(#"{"users":"#.utf8).write(to: file)

    try await withSandbox(SandboxConfiguration(logLevel: .critical, stateDirectory: directory)) { client in
      let created = try await client.createUser("alice", nickname: "Alice")
      #expect(created.status == 200)
    }

    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    let aside = try #require(names.first { $0.hasPrefix("sandbox-state.unreadable-") })
    #expect(try Data(contentsOf: directory.appendingPathComponent(aside)) == Data(#"{"users":"#.utf8))
    #expect(names.contains("sandbox-state.json"), "the new state was written beside it")
  }
}
