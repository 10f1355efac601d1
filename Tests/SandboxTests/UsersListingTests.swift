import Foundation
import Logging
import Sandbox
import Testing

/// SandboxAPI §1: listing, pagination and filters.
@Suite("Sandbox /v3/users listing", .timeLimit(.minutes(3)))
struct UsersListingTests {
  static let unlimited = SandboxConfiguration(rateLimitsEnabled: false, logLevel: .warning)

  @Test("250 users page through in creation order, 100 at a time, with next tokens until the end")
  func pagination() async throws {
    try await withSandbox(Self.unlimited) { client in
      let ids = (0..<250).map { "user-\($0)" }
      for id in ids { #expect(try await client.createUser(id).status == 200) }

      var seen: [String] = []
      var token = ""
      var pages = 0
      repeat {
        let page = try await client.send("GET", "/v3/users?limit=100&token=\(token)")
        #expect(page.status == 200)
        seen += (page.json["users"] as? [[String: Any]] ?? []).compactMap { $0["user_id"] as? String }
        token = (page.json["next"] as? String ?? "").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        pages += 1
      } while !token.isEmpty && pages < 10
      #expect(pages == 3)
      #expect(seen == ids)

      let first = try await client.send("GET", "/v3/users")
      #expect((first.json["users"] as? [Any])?.count == 10, "the default limit is 10")
    }
  }

  @Test("nickname matches exactly, nickname_startswith by prefix, user_ids by a comma list")
  func filters() async throws {
    try await withSandbox(Self.unlimited) { client in
      for (id, nickname) in [("1", "ann"), ("2", "anna"), ("3", "bob"), ("4", "ann")] {
        try await client.createUser(id, nickname: nickname)
      }
      func ids(_ query: String) async throws -> [String] {
        let response = try await client.send("GET", "/v3/users?\(query)")
        return (response.json["users"] as? [[String: Any]] ?? []).compactMap { $0["user_id"] as? String }
      }
      #expect(try await ids("nickname=ann") == ["1", "4"])
      #expect(try await ids("nickname_startswith=ann") == ["1", "2", "4"])
      #expect(try await ids("user_ids=3,1,9") == ["1", "3"])
      #expect(try await ids("nickname=ann&user_ids=2,4") == ["4"])
    }
  }

  @Test("A limit outside 1–100 is 400111; an unreadable page token is 400109")
  func badParameters() async throws {
    try await withSandbox(Self.unlimited) { client in
      for limit in ["0", "101", "ten", "-1"] {
        let response = try await client.send("GET", "/v3/users?limit=\(limit)")
        #expect(response.status == 400)
        #expect(response.errorCode == 400_111, "limit=\(limit)")
      }
      #expect(try await client.send("GET", "/v3/users?token=garbage").errorCode == 400_109)
    }
  }
}
