import Clocks
import Foundation
import Logging
import Sandbox
import Testing

/// SandboxAPI §2: login, expiry, refresh, logout, and the E02/E03/E05/E06 errors. Time is a TestClock.
@Suite("Sandbox auth backend", .timeLimit(.minutes(3)))
struct AuthBackendTests {
  let clock = TestClock()
  var configuration: SandboxConfiguration {
    SandboxConfiguration(
      accessTokenTTL: .seconds(60), refreshTokenTTL: .seconds(600), clock: clock, logLevel: .warning)
  }

  private func login(_ client: SandboxClient, password: String = "demo-password") async throws -> HTTPExchange {
    try await client.send("POST", "/v1/auth/login", json: ["email": "demo@keel.dev", "password": password])
  }

  private func me(_ client: SandboxClient, _ token: String?) async throws -> HTTPExchange {
    try await client.send("GET", "/v1/me", headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
  }

  @Test("Login returns tokens, their lifetime and the user; a wrong password is E03; a bad body E01")
  func loginShapes() async throws {
    try await withSandbox(configuration) { client in
      let response = try await login(client)
      #expect(response.status == 200)
      #expect((response.json["accessToken"] as? String)?.isEmpty == false)
      #expect((response.json["refreshToken"] as? String)?.isEmpty == false)
      #expect(response.json["expiresIn"] as? Int == 60)
      let user = try #require(response.json["user"] as? [String: Any])
      #expect(user["email"] as? String == "demo@keel.dev")
      #expect(user["nickname"] as? String == "demo")
      #expect((user["id"] as? String)?.isEmpty == false)

      let wrong = try await login(client, password: "nope")
      #expect(wrong.status == 401)
      #expect(wrong.json["errorCode"] as? String == "E03")
      let malformed = try await client.send("POST", "/v1/auth/login", raw: Data("{".utf8))
      #expect(malformed.status == 400)
      #expect(malformed.json["errorCode"] as? String == "E01")
    }
  }

  @Test("An access token works until its TTL, then is E05; unknown or missing tokens are E02")
  func expiry() async throws {
    try await withSandbox(configuration) { client in
      let token = try #require(try await login(client).json["accessToken"] as? String)
      #expect(try await me(client, token).json["email"] as? String == "demo@keel.dev")
      await clock.advance(by: .seconds(59))
      #expect(try await me(client, token).status == 200)
      await clock.advance(by: .seconds(1))
      let expired = try await me(client, token)
      #expect(expired.status == 401)
      #expect(expired.json["errorCode"] as? String == "E05")
      #expect(try await me(client, "not-a-token").json["errorCode"] as? String == "E02")
      #expect(try await me(client, nil).json["errorCode"] as? String == "E02")
    }
  }

  @Test("Refresh issues a new access token with the same refresh token; expired or unknown refresh tokens are E06")
  func refresh() async throws {
    try await withSandbox(configuration) { client in
      let session = try await login(client).json
      let refreshToken = try #require(session["refreshToken"] as? String)
      await clock.advance(by: .seconds(61))

      let refreshed = try await client.send(
        "POST", "/v1/auth/refresh", headers: ["RefreshToken": refreshToken, "Authorization": "Bearer expired"])
      #expect(refreshed.status == 200)
      #expect(refreshed.json["expiresIn"] as? Int == 60)
      #expect(refreshed.json["refreshToken"] == nil, "the refresh token is unchanged, so not returned")
      let newToken = try #require(refreshed.json["accessToken"] as? String)
      #expect(try await me(client, newToken).status == 200)

      let unknown = try await client.send("POST", "/v1/auth/refresh", headers: ["RefreshToken": "bogus"])
      #expect(unknown.status == 401)
      #expect(unknown.json["errorCode"] as? String == "E06")
      await clock.advance(by: .seconds(600))
      let late = try await client.send("POST", "/v1/auth/refresh", headers: ["RefreshToken": refreshToken])
      #expect(late.json["errorCode"] as? String == "E06")
    }
  }

  @Test("Logout revokes the refresh token; expire-tokens expires every access token at once")
  func logoutAndExpire() async throws {
    try await withSandbox(configuration) { client in
      let first = try await login(client).json
      let access = try #require(first["accessToken"] as? String)
      let refresh = try #require(first["refreshToken"] as? String)
      #expect(
        try await client.send("POST", "/v1/auth/logout", headers: ["Authorization": "Bearer \(access)"]).status == 200)
      let revoked = try await client.send("POST", "/v1/auth/refresh", headers: ["RefreshToken": refresh])
      #expect(revoked.json["errorCode"] as? String == "E06")

      let second = try #require(try await login(client).json["accessToken"] as? String)
      #expect(try await me(client, second).status == 200)
      #expect(try await client.send("POST", "/_sandbox/expire-tokens").status == 200)
      #expect(try await me(client, second).json["errorCode"] as? String == "E05")
    }
  }
}
