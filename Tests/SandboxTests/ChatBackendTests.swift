import Foundation
import Logging
import Sandbox
import Testing

/// SandboxAPI §2 (sign-up, profile) and §7 (workspaces, channels, DM rooms) over real HTTP: who may see and change
/// what, the codes of every refusal, and the embedded Sandbox keeping it all between runs.
@Suite("Sandbox chat backend", .timeLimit(.minutes(3)))
struct ChatBackendTests {
  /// A signed-up user: their id and a bearer header.
  struct User {
    let id: String
    let headers: [String: String]
  }

  func signUp(_ client: SandboxClient, _ email: String, nickname: String? = nil) async throws -> User {
    var body = ["email": email, "password": "password-1"]
    if let nickname { body["nickname"] = nickname }
    let response = try await client.send("POST", "/v1/auth/signup", json: body)
    #expect(response.status == 201)
    let token = try #require(response.json["accessToken"] as? String)
    let id = try #require((response.json["user"] as? [String: Any])?["id"] as? String)
    return User(id: id, headers: ["Authorization": "Bearer \(token)"])
  }

  func send(_ client: SandboxClient, _ method: String, _ path: String, as user: User, json: Any? = nil) async throws
    -> HTTPExchange
  {
    // A GET or DELETE carries no body (FoundationNetworking refuses one on a GET); the rest send {} by default.
    var body: Any? = json
    if body == nil, method != "GET", method != "DELETE" { body = [String: Any]() }
    return try await client.send(method, path, json: body, headers: user.headers)
  }

  @Test("Sign-up signs in, ids stay unique, the email is taken once, bad input is E01; the profile's nickname changes")
  func signUpAndProfile() async throws {
    try await withSandbox { client in
      let ann = try await signUp(client, "ann@example.com", nickname: "Ann")
      #expect(ann.id == "member-ann")
      let other = try await signUp(client, "ann@example.org")
      #expect(other.id == "member-ann-2")
      let taken = try await client.send(
        "POST", "/v1/auth/signup", json: ["email": "ANN@example.com", "password": "password-2"])
      #expect(taken.status == 409 && taken.json["errorCode"] as? String == "E409")
      for body in [["email": "nobody", "password": "password-1"], ["email": "b@x.io", "password": "short"]] {
        let refused = try await client.send("POST", "/v1/auth/signup", json: body)
        #expect(refused.status == 400 && refused.json["errorCode"] as? String == "E01")
      }
      let login = try await client.send(
        "POST", "/v1/auth/login", json: ["email": "ann@example.com", "password": "password-1"])
      #expect((login.json["user"] as? [String: Any])?["nickname"] as? String == "Ann")
      let renamed = try await client.send("PATCH", "/v1/me", json: ["nickname": "Annie"], headers: ann.headers)
      #expect(renamed.json["nickname"] as? String == "Annie")
      #expect(try await client.send("GET", "/v1/me", headers: ann.headers).json["nickname"] as? String == "Annie")
      #expect(try await client.send("PATCH", "/v1/me", json: ["nickname": "x"]).json["errorCode"] as? String == "E02")
    }
  }

  @Test(
    "Workspaces: the creator owns it, members see it, invitation by email, only the owner renames, hands over, deletes")
  func workspaces() async throws {
    try await withSandbox { client in
      let ann = try await signUp(client, "ann@example.com")
      let bob = try await signUp(client, "bob@example.com")
      let eve = try await signUp(client, "eve@example.com")
      let created = try await send(client, "POST", "/v1/workspaces", as: ann, json: ["name": " Keel "])
      #expect(created.status == 201)
      #expect(created.json["name"] as? String == "Keel" && created.json["ownerId"] as? String == ann.id)
      let id = try #require(created.json["id"] as? String)

      #expect((try await send(client, "GET", "/v1/workspaces", as: bob).json["workspaces"] as? [Any])?.isEmpty == true)
      let hidden = try await send(client, "GET", "/v1/workspaces/\(id)/members", as: bob)
      #expect(hidden.status == 403 && hidden.json["errorCode"] as? String == "E403")
      let invited = try await send(
        client, "POST", "/v1/workspaces/\(id)/members", as: ann, json: ["email": "bob@example.com"])
      #expect(invited.json["memberCount"] as? Int == 2)
      let nobody = try await send(
        client, "POST", "/v1/workspaces/\(id)/members", as: ann, json: ["email": "nobody@example.com"])
      #expect(nobody.status == 404)
      let members = try await send(client, "GET", "/v1/workspaces/\(id)/members", as: bob).json["members"]
      #expect((members as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ann.id, bob.id])

      let notOwner = try await send(client, "PATCH", "/v1/workspaces/\(id)", as: bob, json: ["name": "Mine"])
      #expect(notOwner.status == 403)
      let outsider = try await send(client, "POST", "/v1/workspaces/\(id)/owner", as: ann, json: ["userId": eve.id])
      #expect(outsider.status == 403, "the new owner must be a member")
      let handedOver = try await send(client, "POST", "/v1/workspaces/\(id)/owner", as: ann, json: ["userId": bob.id])
      #expect(handedOver.json["ownerId"] as? String == bob.id)
      #expect(try await send(client, "PATCH", "/v1/workspaces/\(id)", as: bob, json: ["name": "Bob's"]).status == 200)
      #expect(try await send(client, "DELETE", "/v1/workspaces/\(id)", as: ann).status == 403)
      #expect(try await send(client, "DELETE", "/v1/workspaces/\(id)", as: bob).status == 200)
      #expect(try await send(client, "GET", "/v1/workspaces/\(id)/members", as: bob).status == 404)
      let unnamed = try await send(client, "POST", "/v1/workspaces", as: ann, json: ["name": "  "])
      #expect(unnamed.status == 400)
    }
  }

  @Test("Channels: all and joined lists, join and leave, ownership passes on leaving, names unique, owner-only edits")
  func channels() async throws {
    try await withSandbox { client in
      let ann = try await signUp(client, "ann@example.com")
      let bob = try await signUp(client, "bob@example.com")
      let workspace = try #require(
        try await send(client, "POST", "/v1/workspaces", as: ann, json: ["name": "Keel"]).json["id"] as? String)
      _ = try await send(
        client, "POST", "/v1/workspaces/\(workspace)/members", as: ann, json: ["email": "bob@example.com"])
      let general = try await send(
        client, "POST", "/v1/workspaces/\(workspace)/channels", as: ann, json: ["name": "general"])
      #expect(general.status == 201 && general.json["joined"] as? Bool == true)
      let channel = try #require(general.json["id"] as? String)
      let twice = try await send(
        client, "POST", "/v1/workspaces/\(workspace)/channels", as: bob, json: ["name": "general"])
      #expect(twice.status == 409)
      _ = try await send(client, "POST", "/v1/workspaces/\(workspace)/channels", as: bob, json: ["name": "random"])

      func names(_ user: User, joined: Bool) async throws -> [String] {
        let path = "/v1/workspaces/\(workspace)/channels" + (joined ? "?joined=true" : "")
        let list = try await send(client, "GET", path, as: user).json["channels"] as? [[String: Any]]
        return list?.compactMap { $0["name"] as? String } ?? []
      }
      #expect(try await names(bob, joined: false) == ["general", "random"])
      #expect(try await names(bob, joined: true) == ["random"])
      #expect(try await send(client, "POST", "/v1/channels/\(channel)/join", as: bob).json["memberCount"] as? Int == 2)
      #expect(try await names(bob, joined: true) == ["general", "random"])
      #expect(try await send(client, "PATCH", "/v1/channels/\(channel)", as: bob, json: ["name": "x"]).status == 403)

      let left = try await send(client, "POST", "/v1/channels/\(channel)/leave", as: ann)
      #expect(left.json["ownerId"] as? String == bob.id && left.json["joined"] as? Bool == false)
      let handed = try await send(client, "POST", "/v1/channels/\(channel)/owner", as: bob, json: ["userId": ann.id])
      #expect(handed.status == 403, "ann left: not a member any more")
      let members = try await send(client, "GET", "/v1/channels/\(channel)/members", as: ann).json["members"]
      #expect((members as? [[String: Any]])?.compactMap { $0["id"] as? String } == [bob.id])
      #expect(
        try await send(client, "PATCH", "/v1/channels/\(channel)", as: bob, json: ["name": "lobby"]).json["name"]
          as? String == "lobby")
      #expect(try await send(client, "DELETE", "/v1/channels/\(channel)", as: bob).status == 200)
      #expect(try await send(client, "GET", "/v1/channels/\(channel)/members", as: bob).status == 404)
    }
  }

  @Test("DM rooms: opened once per pair (201, then 200 from either side), only with members, listed for their members")
  func directMessages() async throws {
    try await withSandbox { client in
      let ann = try await signUp(client, "ann@example.com")
      let bob = try await signUp(client, "bob@example.com")
      let eve = try await signUp(client, "eve@example.com")
      let workspace = try #require(
        try await send(client, "POST", "/v1/workspaces", as: ann, json: ["name": "Keel"]).json["id"] as? String)
      _ = try await send(
        client, "POST", "/v1/workspaces/\(workspace)/members", as: ann, json: ["email": "bob@example.com"])
      let opened = try await send(client, "POST", "/v1/workspaces/\(workspace)/dms", as: ann, json: ["userId": bob.id])
      #expect(opened.status == 201)
      let found = try await send(client, "POST", "/v1/workspaces/\(workspace)/dms", as: bob, json: ["userId": ann.id])
      #expect(found.status == 200 && found.json["id"] as? String == opened.json["id"] as? String)
      #expect(
        try await send(client, "POST", "/v1/workspaces/\(workspace)/dms", as: ann, json: ["userId": eve.id]).status
          == 403)
      #expect(
        try await send(client, "POST", "/v1/workspaces/\(workspace)/dms", as: ann, json: ["userId": ann.id]).status
          == 400)
      let rooms =
        try await send(client, "GET", "/v1/workspaces/\(workspace)/dms", as: bob).json["dms"] as? [[String: Any]]
      #expect(rooms?.count == 1)
      #expect((rooms?.first?["members"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ann.id, bob.id])
      #expect(rooms?.first?["unreadCount"] as? Int == 0)
    }
  }

  @Test("The embedded Sandbox keeps accounts, workspaces and channels in its data directory from one run to the next")
  func keptBetweenRuns() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-chat-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let configuration = SandboxConfiguration(logLevel: .warning, stateDirectory: directory)
    let workspace = try await withSandbox(configuration) { client in
      let ann = try await signUp(client, "ann@example.com")
      return try #require(
        try await send(client, "POST", "/v1/workspaces", as: ann, json: ["name": "Kept"]).json["id"] as? String)
    }
    try await withSandbox(configuration) { client in
      let login = try await client.send(
        "POST", "/v1/auth/login", json: ["email": "ann@example.com", "password": "password-1"])
      let token = try #require(login.json["accessToken"] as? String)
      let ann = User(id: "member-ann", headers: ["Authorization": "Bearer \(token)"])
      let list = try await send(client, "GET", "/v1/workspaces", as: ann).json["workspaces"] as? [[String: Any]]
      #expect(list?.compactMap { $0["id"] as? String } == [workspace])
    }
  }
}
