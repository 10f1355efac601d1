import Clocks
import Foundation
import Logging
import Sandbox
import Testing

/// SandboxAPI §1: per-tenant, per-route-kind limits with `X-RateLimit-*` on every `/v3` response.
@Suite("Sandbox rate limits", .timeLimit(.minutes(3)))
struct ServerRateLimitTests {
  @Test("More than 5 POSTs within a second: the sixth is 429 500910 with Retry-After and the X-RateLimit headers")
  func sixthPost() async throws {
    // The Sandbox's clock stands still, so all six fall in one window however slowly they are sent (TSan, a busy CI).
    let clock = TestClock()
    try await withSandbox(SandboxConfiguration(clock: clock, logLevel: .warning)) { client in
      var responses: [HTTPExchange] = []
      for index in 0..<6 { responses.append(try await client.createUser("u\(index)")) }

      #expect(responses.prefix(5).allSatisfy { $0.status == 200 })
      #expect(responses.prefix(5).map { $0.header("X-RateLimit-Remaining") } == ["4", "3", "2", "1", "0"])
      let refused = try #require(responses.last)
      #expect(refused.status == 429)
      #expect(refused.errorCode == 500_910)
      #expect(refused.header("X-RateLimit-Limit") == "5;w=1")
      #expect(refused.header("X-RateLimit-Remaining") == "0")
      #expect(refused.header("X-RateLimit-RetryAfter") == "1.000")
      #expect(refused.header("Retry-After") == "1")
      #expect(refused.header("X-RateLimit-Reset") == "1")

      // Another kind of route and another tenant have limits of their own.
      let get = try await client.send("GET", "/v3/users")
      #expect(get.status == 200)
      #expect(get.header("X-RateLimit-Limit") == "10;w=1")
      var other = client
      other.apiToken = "token-b"
      #expect(try await other.createUser("u0").status == 200)

      // Once the window has closed, POSTs are admitted again.
      await clock.advance(by: .seconds(1))
      #expect(try await client.createUser("u6").status == 200)
    }
  }

  @Test("Every /v3 response carries the headers, errors included")
  func headersEverywhere() async throws {
    try await withSandbox { client in
      for path in ["/v3/users", "/v3/users/nobody", "/v3/unknown"] {
        let response = try await client.send("GET", path)
        #expect(response.header("X-RateLimit-Limit") == "10;w=1", "\(path)")
        #expect(response.header("X-RateLimit-Reset") != nil, "\(path)")
      }
    }
  }

  @Test("With rate limits off (--no-rate-limit) there is neither a limit nor its headers")
  func disabled() async throws {
    let statuses = try await withSandbox(SandboxConfiguration(rateLimitsEnabled: false, logLevel: .warning)) {
      client in
      var statuses: [Int] = []
      for index in 0..<8 { statuses.append(try await client.createUser("u\(index)").status) }
      let header = try await client.send("GET", "/v3/users").header("X-RateLimit-Limit")
      return (statuses, header)
    }
    #expect(statuses.0 == Array(repeating: 200, count: 8))
    #expect(statuses.1 == nil)
  }
}
