import Foundation
import Logging
import Networking
import Sandbox
import TestSupport
import Testing

@testable import Realtime

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// SandboxAPI §7's pushes: a new message reaches every member's socket as a `message` event, on Keel's Socket.IO
/// client, and no one else's, even a client that asks for another user's pushes by joining or emitting to a room
/// named after them; a re-send with the same client message id is not pushed again.
@Suite("The Sandbox pushes chat messages", .timeLimit(.minutes(3)))
struct ChatPushTests {
  let session = URLSession(configuration: .ephemeral)

  /// `method path` with `headers` and a JSON or multipart body; the answer's JSON object.
  func call(
    _ sandbox: RunningSandbox, _ method: String, _ path: String, token: String? = nil, json: [String: String]? = nil,
    multipart: MultipartFormData? = nil
  ) async throws -> [String: Any] {
    var request = URLRequest(url: URL(string: sandbox.baseURL.absoluteString + path)!)
    request.httpMethod = method
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    if let json {
      request.httpBody = try JSONSerialization.data(withJSONObject: json)
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    if let multipart {
      request.httpBody = try multipart.encoded()
      request.setValue(multipart.contentType, forHTTPHeaderField: "Content-Type")
    }
    let (data, _) = try await session.data(for: request)
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  func signUp(_ sandbox: RunningSandbox, _ email: String) async throws -> (token: String, id: String) {
    let answer = try await call(sandbox, "POST", "/v1/auth/signup", json: ["email": email, "password": "password-1"])
    let user = try #require(answer["user"] as? [String: Any])
    return (try #require(answer["accessToken"] as? String), try #require(user["id"] as? String))
  }

  func message(_ text: String, id: String) -> MultipartFormData {
    var form = MultipartFormData()
    form.append(text, name: "text")
    form.append(id, name: "clientMessageId")
    return form
  }

  @Test(
    "Members hear each new message once; a hostile non-member who joins and emits to rooms named after the others hears only their own conversation and reaches no one; a re-send is silent"
  )
  func pushes() async throws {
    // Tokens that live an hour, not a minute: under the whole suite this test has run past its time limit waiting for
    // a push, and Ann's POSTs after the first minute fail (E05) and push nothing.
    let sandbox = try await Sandbox.start(SandboxConfiguration(accessTokenTTL: .seconds(3_600), logLevel: .warning))
    let ann = try await signUp(sandbox, "ann@example.com")
    let bob = try await signUp(sandbox, "bob@example.com")
    let eve = try await signUp(sandbox, "eve@example.com")
    let workspace = try #require(
      try await call(sandbox, "POST", "/v1/workspaces", token: ann.token, json: ["name": "Keel"])["id"] as? String)
    for email in ["bob@example.com", "eve@example.com"] {
      _ = try await call(
        sandbox, "POST", "/v1/workspaces/\(workspace)/members", token: ann.token, json: ["email": email])
    }
    let channel = try #require(
      try await call(
        sandbox, "POST", "/v1/workspaces/\(workspace)/channels", token: ann.token, json: ["name": "general"])[
          "id"] as? String)
    _ = try await call(sandbox, "POST", "/v1/channels/\(channel)/join", token: bob.token, json: [:])
    let dm = try #require(
      try await call(sandbox, "POST", "/v1/workspaces/\(workspace)/dms", token: ann.token, json: ["userId": eve.id])[
        "id"]
        as? String)

    let bobSocket = try SandboxSocketIOTests.client(sandbox, token: bob.token)
    let eveSocket = try SandboxSocketIOTests.client(sandbox, token: eve.token)
    let bobHears = bobSocket.events(named: "message")
    let eveHears = eveSocket.events(named: "message")
    await bobSocket.connect()
    await eveSocket.connect()
    try #require(await SandboxSocketIOTests.connected(bobSocket))
    try #require(await SandboxSocketIOTests.connected(eveSocket))
    // Eve, hostile, asks for ann's and bob's pushes under every name a server might give their rooms, and emits to them.
    // Each ack may take as long as a loaded machine needs (two minutes): a late one is not what this test checks.
    let bobHearsRooms = bobSocket.events(named: "room_message")
    for room in [ann.id, bob.id].flatMap({ ["user:\($0)", $0, "/user:\($0)"] }) {
      _ = try await eveSocket.emitWithAck("join", [.string(room)], timeout: .seconds(120))
      _ = try await eveSocket.emitWithAck("to_room", [.string(room), "forged"], timeout: .seconds(120))
    }
    _ = try await eveSocket.emitWithAck("leave", [.string("user:\(eve.id)")], timeout: .seconds(120))

    _ = try await call(
      sandbox, "POST", "/v1/conversations/\(channel)/messages", token: ann.token,
      multipart: message("hi all", id: "a-1"))
    _ = try await call(
      sandbox, "POST", "/v1/conversations/\(channel)/messages", token: ann.token,
      multipart: message("hi all", id: "a-1"))
    _ = try await call(
      sandbox, "POST", "/v1/conversations/\(channel)/messages", token: ann.token, multipart: message("again", id: "a-2")
    )
    _ = try await call(
      sandbox, "POST", "/v1/conversations/\(dm)/messages", token: ann.token, multipart: message("psst", id: "a-3"))

    var bobIterator = bobHears.makeAsyncIterator()
    let first = try #require(await bobIterator.next()?.args.first)
    #expect(first["text"]?.string == "hi all" && first["conversationId"]?.string == channel)
    #expect(first["clientMessageId"]?.string == "a-1")
    let second = try #require(await bobIterator.next()?.args.first)
    #expect(second["text"]?.string == "again", "the re-send of a-1 was not pushed")
    // Each socket hears in order: eve's first message is the DM's, so the channel's never reached her.
    var eveIterator = eveHears.makeAsyncIterator()
    #expect(await eveIterator.next()?.args.first?["text"]?.string == "psst", "eve still hears her own DM")
    // Bob heard the channel's two messages, pushed after eve's forged room messages were handled; then a room message
    // of his own, sent after them, is the first he hears: none of eve's reached him.
    _ = try await bobSocket.emitWithAck("join", ["probe"], timeout: .seconds(120))
    _ = try await bobSocket.emitWithAck("to_room", ["probe", "own"], timeout: .seconds(120))
    var bobRooms = bobHearsRooms.makeAsyncIterator()
    #expect(await bobRooms.next()?.args.first?.string == "own", "a forged room message reached bob")
    await bobSocket.disconnect()
    await eveSocket.disconnect()
    await sandbox.stop()
  }
}
