import Foundation
import Logging
import Sandbox
import Testing

/// SandboxAPI §1: `/v3/users` success shapes, tenancy and every error code.
@Suite("Sandbox /v3/users", .timeLimit(.minutes(3)))
struct UsersAPITests {
  @Test("POST creates a user with every documented field")
  func create() async throws {
    try await withSandbox { client in
      let created = try await client.send(
        "POST", "/v3/users",
        json: [
          "user_id": "alice", "nickname": "Alice", "profile_url": "https://example.com/a.png",
          "metadata": ["team": "ios"],
        ])
      #expect(created.status == 200)
      #expect(created.header("Content-Type") == "application/json")
      let user = created.json
      #expect(user["user_id"] as? String == "alice")
      #expect(user["nickname"] as? String == "Alice")
      #expect(user["profile_url"] as? String == "https://example.com/a.png")
      #expect(user["access_token"] as? String == "")
      #expect(user["is_online"] as? Bool == false)
      #expect(user["is_active"] as? Bool == true)
      #expect(user["last_seen_at"] as? Int == 0)
      #expect((user["created_at"] as? Int ?? 0) > 1_700_000_000)
      #expect(user["has_ever_logged_in"] as? Bool == false)
      #expect(user["metadata"] as? [String: String] == ["team": "ios"])
      #expect((user["discovery_keys"] as? [Any])?.isEmpty == true)
      #expect((user["preferred_languages"] as? [Any])?.isEmpty == true)

      let issued = try await client.send(
        "POST", "/v3/users", json: ["user_id": "bob", "nickname": "", "profile_url": "", "issue_access_token": true])
      #expect((issued.json["access_token"] as? String)?.count == 40)
    }
  }

  @Test("GET, PUT and DELETE by id; ids with reserved characters are percent-encoded in the path")
  func readUpdateDelete() async throws {
    try await withSandbox { client in
      let id = "ana/maría?#1"
      let path = "/v3/users/" + id.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
      try await client.createUser(id, nickname: "Ana")

      #expect(try await client.send("GET", path).json["nickname"] as? String == "Ana")
      let updated = try await client.send("PUT", path, json: ["nickname": "Ana M.", "metadata": ["k": "v"]])
      #expect(updated.status == 200)
      #expect(updated.json["nickname"] as? String == "Ana M.")
      #expect(updated.json["metadata"] as? [String: String] == ["k": "v"])
      #expect(try await client.send("GET", path).json["nickname"] as? String == "Ana M.")

      let deleted = try await client.send("DELETE", path)
      #expect(deleted.status == 200)
      #expect(deleted.json.isEmpty)
      for method in ["GET", "PUT", "DELETE"] {
        let missing = try await client.send(method, path, json: method == "PUT" ? ["nickname": "x"] : nil)
        #expect(missing.status == 400)
        #expect(missing.errorCode == 400_201, "\(method) after delete")
        #expect(missing.json["message"] as? String == #""User" not found."#)
      }
    }
  }

  @Test("Api-Token: missing or unknown is 401 400401; each token has its own data")
  func tenancy() async throws {
    try await withSandbox(SandboxConfiguration(apiTokens: ["token-a", "token-b"], logLevel: .warning)) { client in
      var anonymous = client
      anonymous.apiToken = nil
      let missing = try await anonymous.send("GET", "/v3/users")
      #expect(missing.status == 401)
      #expect(missing.errorCode == 400_401)
      #expect(missing.json["message"] as? String == #"Invalid value: "Api-Token"."#)
      var stranger = client
      stranger.apiToken = "token-z"
      #expect(try await stranger.send("GET", "/v3/users").status == 401)

      try await client.createUser("shared-id", nickname: "A's")
      var other = client
      other.apiToken = "token-b"
      #expect(try await other.send("GET", "/v3/users/shared-id").errorCode == 400_201)
      #expect(try await other.createUser("shared-id", nickname: "B's").status == 200)
      #expect(try await client.send("GET", "/v3/users/shared-id").json["nickname"] as? String == "A's")
    }
  }

  @Test("Validation: 400202 duplicate, 400105 missing, 400110 too long, 400100 wrong type, 400403 not JSON")
  func validation() async throws {
    try await withSandbox(SandboxConfiguration(rateLimitsEnabled: false, logLevel: .warning)) { client in
      try await client.createUser("dup")
      let cases: [(body: Any?, raw: Data?, code: Int, what: String)] = [
        (["user_id": "dup", "nickname": "", "profile_url": ""], nil, 400_202, "duplicate"),
        (["nickname": "", "profile_url": ""], nil, 400_105, "no user_id"),
        (["user_id": "", "nickname": "", "profile_url": ""], nil, 400_105, "empty user_id"),
        (["user_id": "x", "profile_url": ""], nil, 400_105, "no nickname"),
        (["user_id": "x", "nickname": ""], nil, 400_105, "no profile_url"),
        (["user_id": String(repeating: "u", count: 81), "nickname": "", "profile_url": ""], nil, 400_110, "id 81"),
        (["user_id": "x", "nickname": String(repeating: "n", count: 81), "profile_url": ""], nil, 400_110, "nick 81"),
        (["user_id": "x", "nickname": "", "profile_url": String(repeating: "p", count: 2_049)], nil, 400_110, "url"),
        (["user_id": 42, "nickname": "", "profile_url": ""], nil, 400_100, "numeric id"),
        (["user_id": "x", "nickname": true, "profile_url": ""], nil, 400_100, "boolean nickname"),
        (["user_id": "x", "nickname": "", "profile_url": "", "metadata": ["a": 1]], nil, 400_100, "metadata value"),
        (
          [
            "user_id": "x", "nickname": "", "profile_url": "",
            "metadata": Dictionary(uniqueKeysWithValues: (1...6).map { ("k\($0)", "v") }),
          ],
          nil, 400_110, "six metadata entries"
        ),
        (nil, Data("{not json".utf8), 400_403, "malformed JSON"),
        (nil, Data("[1, 2]".utf8), 400_403, "JSON that is not an object"),
      ]
      for testCase in cases {
        let response = try await client.send("POST", "/v3/users", json: testCase.body, raw: testCase.raw)
        #expect(response.status == 400, "\(testCase.what)")
        #expect(response.errorCode == testCase.code, "\(testCase.what)")
        #expect((response.json["message"] as? String)?.isEmpty == false, "\(testCase.what)")
      }
      #expect(try await client.createUser(String(repeating: "u", count: 80)).status == 200, "80 characters is fine")
    }
  }

  @Test("Unknown routes are 404 400404, wrong methods 405 with Allow, bodies over 1 MiB 413; all JSON")
  func badRequests() async throws {
    try await withSandbox { client in
      let unknown = try await client.send("GET", "/v3/channels")
      #expect(unknown.status == 404)
      #expect(unknown.errorCode == 400_404)
      #expect(try await client.send("GET", "/nowhere").status == 404)

      let wrongMethod = try await client.send("PATCH", "/v3/users")
      #expect(wrongMethod.status == 405)
      #expect(wrongMethod.errorCode == 400_405)
      #expect(wrongMethod.header("Allow") == "POST, GET")

      let huge = try await client.send("POST", "/v3/users", raw: Data(count: (1 << 20) + 1))
      #expect(huge.status == 413)
      #expect(huge.errorCode == 400_413)

      // Well-formed escapes that are not UTF-8: the id cannot be decoded.
      let badEncoding = try await client.send("GET", "/v3/users/%FF%FE")
      #expect(badEncoding.status == 400)
      #expect(badEncoding.errorCode == 400_100)
    }
  }
}
