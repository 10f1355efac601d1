import Clocks
import Foundation
import Logging
import Sandbox
import Testing

/// `GET /_sandbox/requests` and `--rate-limit` (REQUIREMENTS L2: a test sees the spacing the server saw).
@Suite("Sandbox request journal and limits", .timeLimit(.minutes(3)))
struct RequestJournalTests {
  private func journal(_ client: SandboxClient, _ query: String = "") async throws -> [[String: Any]] {
    let answer = try await client.send("GET", "/_sandbox/requests\(query)")
    #expect(answer.status == 200)
    return try #require(answer.json["requests"] as? [[String: Any]])
  }

  @Test("Each request outside the control plane: method, path, status, tenant (never the token), arrival in ms")
  func entries() async throws {
    let clock = TestClock()
    try await withSandbox(SandboxConfiguration(clock: clock, logLevel: .warning)) { client in
      try await client.createUser("u1")
      await clock.advance(by: .milliseconds(1_500))
      try await client.createUser("u1")  // 400202: exists
      _ = try await client.send("GET", "/v3/users/u1")
      var other = client
      other.apiToken = "token-b"
      try await other.createUser("u2")

      let posts = try await journal(client, "?method=post&path=/v3/users")
      #expect(posts.map { $0["status"] as? Int } == [200, 400, 200])
      #expect(posts.map { $0["arrivalMs"] as? Double } == [0, 1_500, 1_500])
      #expect(posts.allSatisfy { $0["method"] as? String == "POST" && $0["path"] as? String == "/v3/users" })
      let tenants = posts.compactMap { $0["tenant"] as? String }
      #expect(tenants.count == 3 && tenants[0] == tenants[1] && tenants[0] != tenants[2])
      #expect(tenants.allSatisfy { $0.count == 12 && !$0.contains("token") })
      #expect(try await journal(client).count == 4, "the GET too; the journal's own reads are not in it")

      _ = try await client.send("POST", "/_sandbox/reset")
      #expect(try await journal(client).isEmpty)
    }
  }

  @Test("A full window's end allows the tolerance (10 ms) of jitter, anchored, so it never adds up")
  func tolerance() async throws {
    let clock = TestClock()
    var configuration = SandboxConfiguration(clock: clock, logLevel: .warning)
    try configuration.rateLimits.apply("post=1")
    try await withSandbox(configuration) { client in
      var statuses: [Int] = []
      // 0 ms opens a window; 995 ms is 5 ms early for the next: allowed, in the window that opens at 1,000 ms.
      statuses.append(try await client.createUser("a").status)
      await clock.advance(to: clock.now.advanced(by: .milliseconds(995)))
      statuses.append(try await client.createUser("b").status)
      // 1,990 ms: 10 ms before the window of 2,000 ms, allowed; 2,500 ms falls in that same window, refused.
      await clock.advance(by: .milliseconds(995))
      statuses.append(try await client.createUser("c").status)
      await clock.advance(by: .milliseconds(510))
      statuses.append(try await client.createUser("d").status)
      // 3,900 ms: the window of 2,000 ms has closed, so one opens now, and a second POST in it is refused.
      await clock.advance(by: .milliseconds(1_400))
      statuses.append(try await client.createUser("e").status)
      statuses.append(try await client.createUser("f").status)
      #expect(statuses == [200, 200, 200, 429, 200, 429])
    }
  }

  @Test("--rate-limit settings: KIND=N, with a sentence for anything else")
  func settings() throws {
    var limits = SandboxConfiguration.RateLimits()
    try limits.apply("post=1")
    try limits.apply(" GET = 20 ")
    try limits.apply("tolerance=150")
    #expect(limits.post == 1 && limits.get == 20 && limits.put == 5 && limits.tolerance == .milliseconds(150))
    for bad in ["post", "post=0", "post=x", "patch=2", "=3", "post=1000000", "tolerance=-1", "tolerance=2000"] {
      let error = #expect(throws: SandboxConfigurationError.self) { try limits.apply(bad) }
      #expect(error?.description.contains(bad.split(separator: "=").first.map(String.init) ?? bad) == true)
    }
  }
}
