import Clocks
import Foundation
import KeelRandom
import Logging
import Sandbox
import TestSupport
import Testing

/// SandboxAPI §5: faults (status, rate, seed, latency, dropped connections, count), stats and reset.
@Suite("Sandbox faults and control plane", .timeLimit(.minutes(3)))
struct FaultInjectionTests {
  /// A route that answers 200 to any token, for counting faults against.
  static let route = "/v1/events/stats"

  private func addFault(_ client: SandboxClient, _ fault: [String: Any]) async throws {
    #expect(try await client.send("POST", "/_sandbox/faults", json: fault).status == 200)
  }

  @Test("A 100% fault answers with its status, in the shape of the route's API; DELETE clears it")
  func fullFault() async throws {
    try await withSandbox { client in
      try await addFault(client, ["route": "*", "status": 503])
      let backend = try await client.send("GET", Self.route)
      #expect(backend.status == 503)
      #expect(backend.json["errorCode"] as? String == "E503")
      let platform = try await client.send("GET", "/v3/users")
      #expect(platform.status == 503)
      #expect(platform.errorCode == 500_901)
      #expect(try await client.send("GET", "/_sandbox/stats").status == 200, "the control plane is never faulted")

      #expect(try await client.send("DELETE", "/_sandbox/faults").status == 200)
      #expect(try await client.send("GET", Self.route).status == 200)
    }
  }

  @Test("retryAfter adds Retry-After, in whole seconds rounded up, to the injected answer, from code and from JSON")
  func retryAfter() async throws {
    let configuration = SandboxConfiguration(
      faults: [SandboxFault(route: "/v3/users", status: 503, retryAfter: .milliseconds(1_500), count: 1)],
      logLevel: .warning)
    try await withSandbox(configuration) { client in
      let fromCode = try await client.send("GET", "/v3/users")
      #expect(fromCode.status == 503 && fromCode.header("Retry-After") == "2", "\(fromCode.headers)")
      try await client.sandbox.control.addFault(
        SandboxFault(route: Self.route, status: 429, retryAfter: .seconds(120), count: 1))
      let fromControl = try await client.send("GET", Self.route)
      #expect(fromControl.status == 429 && fromControl.header("Retry-After") == "120", "\(fromControl.headers)")
      #expect(fromControl.json["errorCode"] as? String == "E429", "the route's error shape is kept")
      let after = try await client.send("GET", Self.route)
      #expect(after.status == 200 && after.header("Retry-After") == nil)
      let refused = try await client.send(
        "POST", "/_sandbox/faults", json: ["route": "*", "status": 503, "retryAfter": -1])
      #expect(refused.status == 400)
    }
  }

  @Test("An injected 304 or 204 has no body, so that the next response on the same connection is read whole")
  func bodilessStatuses() async throws {
    try await withSandbox { client in
      for status in [304, 204] {
        try await addFault(client, ["route": "/images/a.png", "status": status, "count": 1])
        // Two requests in one write on one connection: a body after the first head would be read as the second's.
        let (answer, _) = try await LoopbackExchange.keepingOpen(
          port: client.sandbox.port,
          "GET /images/a.png?size=8 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            + "GET /images/a.png?size=8 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
          wait: 30)
        let parts = answer.components(separatedBy: "\r\n\r\n")
        #expect(parts.count >= 3, "two heads: \(answer.debugDescription)")
        #expect(parts.first?.hasPrefix("HTTP/1.1 \(status)") == true, "\(answer.debugDescription)")
        #expect(
          parts.dropFirst().first?.hasPrefix("HTTP/1.1 200") == true, "no body between: \(answer.debugDescription)")
      }
    }
  }

  @Test("Faults given at start-up (the CLI's --fail-rate/--fail-status) are in force from the first request")
  func startupFault() async throws {
    let configuration = SandboxConfiguration(faults: [SandboxFault(status: 418)], logLevel: .warning)
    try await withSandbox(configuration) { (client) async throws in
      #expect(try await client.send("GET", Self.route).status == 418)
      #expect(try await client.send("GET", "/_sandbox/stats").status == 200)
    }
  }

  @Test("Faulted and too-large /v3 responses still carry the X-RateLimit headers; a 1xx fault is refused")
  func faultedPlatformResponses() async throws {
    try await withSandbox { client in
      try await addFault(client, ["route": "/v3/users", "status": 503, "count": 1])
      let faulted = try await client.send("GET", "/v3/users")
      #expect(faulted.status == 503)
      #expect(faulted.header("X-RateLimit-Limit") == "10;w=1")
      let tooLarge = try await client.send("POST", "/v3/users", raw: Data(count: (1 << 20) + 1))
      #expect(tooLarge.status == 413)
      #expect(tooLarge.header("X-RateLimit-Limit") == "5;w=1")
      #expect(try await client.send("POST", "/_sandbox/faults", json: ["route": "*", "status": 101]).status == 400)
    }
  }

  @Test("Paths with empty segments get their section's rules: no way around tenancy or the rate limits")
  func emptySegments() async throws {
    try await withSandbox(SandboxConfiguration(apiTokens: ["token-a"], logLevel: .warning)) { client in
      var anonymous = client
      anonymous.apiToken = nil
      for path in ["//v3/users", "/v3//users", "/v1//events/stats"] {
        let response = try await anonymous.send("GET", path)
        #expect(response.status == 401, "\(path)")
      }
      #expect(try await client.send("GET", "//v3/users").header("X-RateLimit-Limit") != nil)
    }
  }

  @Test("Dropped connections are counted; the control plane's own calls are not; reset leaves nothing behind")
  func statsAccounting() async throws {
    try await withSandbox { client in
      try await addFault(client, ["route": Self.route, "dropConnectionRate": 1])
      _ = try? await client.send("GET", Self.route)
      #expect((try await client.send("GET", "/_sandbox/stats").json["droppedConnections"] as? Int ?? 0) >= 1)
      #expect(try await client.send("POST", "/_sandbox/reset").status == 200)
      let stats = try await client.send("GET", "/_sandbox/stats").json
      #expect((stats["routes"] as? [String: Any])?.isEmpty == true)
    }
  }

  @Test("A rate of 0.2 with a seed faults exactly the requests its SplitMix64 draws pick, on every run")
  func seededRate() async throws {
    var generator = SplitMix64(seed: 7)
    let expected = (0..<100).map { _ in generator.nextUnit() < 0.2 }
    #expect((10...30).contains(expected.filter { $0 }.count), "a fair draw of 20%")
    for _ in 0..<2 {
      let observed = try await withSandbox { client in
        try await addFault(client, ["route": Self.route, "status": 500, "rate": 0.2, "seed": 7])
        var faulted: [Bool] = []
        for _ in 0..<100 { faulted.append(try await client.send("GET", Self.route).status == 500) }
        return faulted
      }
      #expect(observed == expected)
    }
  }

  @Test("count ends a fault after that many matching requests; other routes are untouched")
  func count() async throws {
    try await withSandbox { client in
      try await addFault(client, ["route": Self.route, "status": 502, "count": 3])
      #expect(try await client.send("GET", "/v1/events").status == 200, "another route")
      var statuses: [Int] = []
      for _ in 0..<5 { statuses.append(try await client.send("GET", Self.route).status) }
      #expect(statuses == [502, 502, 502, 200, 200])
    }
  }

  @Test("Dropped connections surface as transport errors")
  func droppedConnection() async throws {
    try await withSandbox { client in
      // Every connection, since URLSession quietly retries an idempotent request once on a fresh one.
      try await addFault(client, ["route": Self.route, "dropConnectionRate": 1])
      await #expect(throws: (any Error).self) { try await client.send("GET", Self.route) }
      #expect(try await client.send("DELETE", "/_sandbox/faults").status == 200)
      #expect(try await client.send("GET", Self.route).status == 200, "the next connection is served")
    }
  }

  @Test("Latency holds the response until that much time has passed on the Sandbox's clock")
  func latency() async throws {
    let clock = TestClock()
    try await withSandbox(SandboxConfiguration(clock: clock, logLevel: .warning)) { client in
      try await addFault(client, ["route": Self.route, "latencyMs": 2_000])
      // The answer waits on the test clock, which a loaded run may take more than URLSession's default 60 s to reach
      // (the suite's time limit bounds the wait instead).
      let pending = TaskProbe { try await client.send("GET", Self.route, timeout: 600).status }
      #expect(await clock.sleeperArrived())
      await clock.advance(by: .milliseconds(1_999))
      await settle()
      #expect(!pending.isFinished)
      await clock.advance(by: .milliseconds(1))
      #expect(await eventually(maxYields: 2_000_000) { pending.isFinished })
      #expect(await pending.value() == 200)
    }
  }

  @Test("Stats count responses per route and status, logins and refreshes; reset wipes data and counters")
  func statsAndReset() async throws {
    try await withSandbox { client in
      try await client.createUser("alice")
      _ = try await client.send("GET", "/v3/users/alice")
      _ = try await client.send("GET", "/v3/users/bob")
      _ = try await client.send(
        "POST", "/v1/auth/login", json: ["email": "demo@keel.dev", "password": "demo-password"])
      let stats = try await client.send("GET", "/_sandbox/stats").json
      let routes = try #require(stats["routes"] as? [String: [String: Int]])
      #expect(routes["POST /v3/users"]?["200"] == 1)
      #expect(routes["GET /v3/users/:user_id"] == ["200": 1, "400": 1])
      #expect(stats["logins"] as? Int == 1)

      #expect(try await client.send("POST", "/_sandbox/reset").status == 200)
      #expect(try await client.send("GET", "/v3/users/alice").errorCode == 400_201)
      let after = try await client.send("GET", "/_sandbox/stats").json
      #expect(after["logins"] == nil)
    }
  }
}
