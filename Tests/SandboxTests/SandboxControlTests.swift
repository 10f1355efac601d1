import Foundation
import Logging
import Sandbox
import Testing

/// `SandboxControl`, the public client of `/_sandbox` that the demo, the examples and tests use.
@Suite("SandboxControl", .timeLimit(.minutes(3)))
struct SandboxControlTests {
  @Test("Faults, statistics, token expiry and reset, each through the control client")
  func controlPlane() async throws {
    try await withSandbox { client in
      let control = client.sandbox.control
      try await control.addFault(SandboxFault(route: "/v3/users", status: 503, rate: 1, count: 1))
      #expect(try await client.createUser("alice", nickname: "Alice").status == 503)
      #expect(try await client.createUser("alice", nickname: "Alice").status == 200, "the fault was for one request")
      let login = try await client.send(
        "POST", "/v1/auth/login", json: ["email": "demo@keel.dev", "password": "demo-password"])
      let token = try #require(login.json["accessToken"] as? String)
      try await control.expireTokens()
      let me = try await client.send("GET", "/v1/me", headers: ["Authorization": "Bearer \(token)"])
      #expect(me.json["errorCode"] as? String == "E05")

      let statistics = try await control.statistics()
      #expect(statistics.responses("POST /v3/users", status: 503) == 1)
      #expect(statistics.responses("POST /v3/users", status: 200) == 1)
      #expect(statistics.requests("POST /v3/users") == 2)
      #expect(statistics.counter("logins") == 1)
      #expect(statistics.counter("no such counter") == 0)

      try await control.addFault(SandboxFault(route: "*", status: 500))
      try await control.removeFaults()
      #expect(try await client.createUser("bob", nickname: "Bob").status == 200)
      try await control.reset()
      let afterReset = try await control.statistics()
      #expect(afterReset.counters.isEmpty && afterReset.routes.isEmpty)
    }
  }
}
