import Foundation
import Logging
import Sandbox
import TestSupport
import Testing

/// SandboxAPI §7's messages over real HTTP: multipart sends (one written by curl, an encoder that is not Keel's),
/// idempotent client message ids, every refusal typed, cursors, unread counts and last messages, images with ETags.
@Suite("Sandbox chat messages", .timeLimit(.minutes(10)))
struct ChatMessagesTests {
  static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])

  /// Two members of one workspace, and a channel both joined.
  struct Room {
    let client: SandboxClient
    let ann: [String: String]
    let bob: [String: String]
    let bobID: String
    let workspace: String
    let channel: String
  }

  func room(_ client: SandboxClient) async throws -> Room {
    func signUp(_ email: String) async throws -> ([String: String], String) {
      let response = try await client.send("POST", "/v1/auth/signup", json: ["email": email, "password": "password-1"])
      let token = try #require(response.json["accessToken"] as? String)
      return (
        ["Authorization": "Bearer \(token)"], try #require((response.json["user"] as? [String: Any])?["id"] as? String)
      )
    }
    let (ann, _) = try await signUp("ann@example.com")
    let (bob, bobID) = try await signUp("bob@example.com")
    let workspace = try #require(
      try await client.send("POST", "/v1/workspaces", json: ["name": "Keel"], headers: ann).json["id"] as? String)
    _ = try await client.send(
      "POST", "/v1/workspaces/\(workspace)/members", json: ["email": "bob@example.com"], headers: ann)
    let channel = try #require(
      try await client.send("POST", "/v1/workspaces/\(workspace)/channels", json: ["name": "general"], headers: ann)
        .json["id"] as? String)
    _ = try await client.send("POST", "/v1/channels/\(channel)/join", json: [String: Any](), headers: bob)
    return Room(client: client, ann: ann, bob: bob, bobID: bobID, workspace: workspace, channel: channel)
  }

  /// A multipart body written by hand: `fields` then `files` (name, filename, bytes).
  static func multipart(_ fields: [(String, String)], files: [(String, String, Data)] = []) -> (Data, String) {
    let boundary = "test-\(UUID().uuidString)"
    var body = Data()
    for (name, value) in fields {
      body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
    }
    for (name, filename, data) in files {
      body.append(
        Data(
          "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            .utf8))
      body.append(data)
      body.append(Data("\r\n".utf8))
    }
    body.append(Data("--\(boundary)--\r\n".utf8))
    return (body, "multipart/form-data; boundary=\(boundary)")
  }

  func send(
    _ room: Room, as headers: [String: String], to conversation: String? = nil, text: String, id: String? = nil,
    images: [Data] = []
  ) async throws -> HTTPExchange {
    var fields = [("text", text)]
    if let id { fields.append(("clientMessageId", id)) }
    let (body, type) = Self.multipart(
      fields, files: images.enumerated().map { ("images", "\($0.offset).png", $0.element) })
    return try await room.client.send(
      "POST", "/v1/conversations/\(conversation ?? room.channel)/messages", raw: body,
      headers: headers.merging(["Content-Type": type]) { $1 })
  }

  @Test("curl's multipart upload is a message with its images, served with an ETag; the same client id is one message")
  func sendWithCurl() async throws {
    try await withSandbox { client in
      let room = try await room(client)
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-msg-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: directory) }
      let photo = directory.appendingPathComponent("photo.png")
      try (Self.png + Data(repeating: 7, count: 100_000)).write(to: photo)
      // Run off the cooperative pool (a blocking wait there stalls the Sandbox curl is talking to); `-w` ends the
      // answer with a line break, for ChildProcess's complete lines.
      let authorization = try #require(room.ann["Authorization"])
      let curl = try await ChildProcess.run(
        URL(fileURLWithPath: "/usr/bin/env"),
        arguments: [
          "curl", "-sS", "-w", "\n", "-H", "Authorization: \(authorization)", "-F", "text=hello from curl", "-F",
          "clientMessageId=c-1", "-F", "images=@\(photo.path)", "-F", "images=@\(photo.path)",
          "\(client.sandbox.baseURL)/v1/conversations/\(room.channel)/messages",
        ], killAfter: .seconds(30))
      #expect(curl.status == 0, "curl must be installed (.ci/run installs it): \(curl.errors)")
      let answer = Data(curl.lines.joined().utf8)
      let message = try #require(try JSONSerialization.jsonObject(with: answer) as? [String: Any])
      #expect(message["text"] as? String == "hello from curl")
      let images = try #require(message["images"] as? [String])
      #expect(images.count == 2)

      let image = try await client.send("GET", images[0], headers: room.bob)
      let sent = try Data(contentsOf: photo)
      #expect(image.status == 200 && image.body == sent)
      #expect(image.header("Content-Type") == "image/png")
      let etag = try #require(image.header("ETag"))
      let again = try await client.send("GET", images[0], headers: room.bob.merging(["If-None-Match": etag]) { $1 })
      #expect(again.status == 304)
      let eve = try await client.send(
        "POST", "/v1/auth/signup", json: ["email": "eve@example.com", "password": "password-1"])
      let eveToken = try #require(eve.json["accessToken"] as? String)
      let peek = try await client.send("GET", images[0], headers: ["Authorization": "Bearer \(eveToken)"])
      #expect(peek.status == 404, "only the conversation's members see its images")

      let resent = try await send(room, as: room.ann, text: "hello from curl", id: "c-1")
      #expect(resent.status == 200 && resent.json["id"] as? String == message["id"] as? String)
      let listed = try await client.send("GET", "/v1/conversations/\(room.channel)/messages", headers: room.bob)
      #expect((listed.json["messages"] as? [Any])?.count == 1)
    }
  }

  @Test(
    "Refusals: six images E10, a file that is no image E11, an image over 8 MiB E12, nothing to send, a text over 40,000 bytes, a client id over 128 bytes or a broken body E01, a non-member E403"
  )
  func refusals() async throws {
    try await withSandbox { client in
      let room = try await room(client)
      func code(_ response: HTTPExchange) -> String? { response.json["errorCode"] as? String }
      #expect(
        code(try await send(room, as: room.ann, text: "x", images: Array(repeating: Self.png, count: 6))) == "E10")
      #expect(code(try await send(room, as: room.ann, text: "x", images: [Data("not an image".utf8)])) == "E11")
      let huge = Self.png + Data(count: 8 << 20)
      #expect(code(try await send(room, as: room.ann, text: "x", images: [huge])) == "E12")
      #expect(code(try await send(room, as: room.ann, text: "")) == "E01")
      // One character with 20,000 combining marks: within 10,000 characters, over 40,000 bytes.
      let heavy = try await send(room, as: room.ann, text: "e" + String(repeating: "\u{301}", count: 20_000))
      #expect(heavy.status == 400 && code(heavy) == "E01", "\(heavy.json)")
      let longID = try await send(room, as: room.ann, text: "x", id: String(repeating: "\u{e9}", count: 65))
      #expect(longID.status == 400 && code(longID) == "E01", "a client message id of 130 bytes: \(longID.json)")
      let broken = try await client.send(
        "POST", "/v1/conversations/\(room.channel)/messages", raw: Data("--b\r\nno headers".utf8),
        headers: room.ann.merging(["Content-Type": "multipart/form-data; boundary=b"]) { $1 })
      #expect(broken.status == 400 && code(broken) == "E01")
      let noBoundary = try await client.send(
        "POST", "/v1/conversations/\(room.channel)/messages", raw: Data("text".utf8),
        headers: room.ann.merging(["Content-Type": "text/plain"]) { $1 })
      #expect(code(noBoundary) == "E01")
      _ = try await client.send("POST", "/v1/channels/\(room.channel)/leave", json: [String: Any](), headers: room.bob)
      let outsider = try await send(room, as: room.bob, text: "hi")
      #expect(outsider.status == 403 && code(outsider) == "E403")
      #expect(try await send(room, as: room.ann, to: "c999", text: "hi").status == 404)
      let listed = try await client.send("GET", "/v1/conversations/\(room.channel)/messages", headers: room.ann)
      #expect((listed.json["messages"] as? [Any])?.isEmpty == true, "nothing refused was stored")
    }
  }

  @Test("Cursors: the newest page, older pages before a message, newer ones after, hasMore at each end")
  func cursors() async throws {
    // The helper's hour-long access token: on a loaded machine the 120 sends below took longer than a minute.
    try await withSandbox { client in
      let room = try await room(client)
      var refused: [String] = []
      for index in 1...120 {
        let sent = try await send(room, as: room.ann, text: "\(index)")
        if sent.status != 201 {
          refused.append("\(index): \(sent.status) \(String(decoding: sent.body, as: UTF8.self))")
        }
      }
      #expect(refused.isEmpty, "every send is stored: \(refused)")
      func page(_ query: String) async throws -> ([String], Bool) {
        let response = try await client.send(
          "GET", "/v1/conversations/\(room.channel)/messages\(query)", headers: room.bob)
        #expect(response.status == 200, "\(query): \(String(decoding: response.body, as: UTF8.self))")
        let texts = (response.json["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String } ?? []
        return (texts, response.json["hasMore"] as? Bool ?? false)
      }
      let ids =
        try await client.send("GET", "/v1/conversations/\(room.channel)/messages?limit=100", headers: room.bob)
        .json["messages"] as? [[String: Any]]
      let (newest, more) = try await page("")
      #expect(newest == (71...120).map(String.init) && more, "\(newest)")
      let firstOfNewest = try #require(ids?.first { $0["text"] as? String == "71" }?["id"] as? String)
      let (older, moreOlder) = try await page("?before=\(firstOfNewest)&limit=60")
      #expect(older == (11...70).map(String.init) && moreOlder)
      let tenth = try #require(ids?.first { $0["text"] as? String == "30" }?["id"] as? String)
      let (after, moreAfter) = try await page("?after=\(tenth)&limit=100")
      #expect(after == (31...120).map(String.init) && !moreAfter, "\(after)")
      #expect(
        try await client.send("GET", "/v1/conversations/\(room.channel)/messages?limit=101", headers: room.bob).status
          == 400)
      #expect(
        try await client.send("GET", "/v1/conversations/\(room.channel)/messages?after=m999", headers: room.bob).status
          == 404)
    }
  }

  @Test("A page stops at 1 MiB of messages, with hasMore, always holding one; the pages together bring every message")
  func pageWeight() async throws {
    try await withSandbox { client in
      let room = try await room(client)
      // Thirty of the heaviest messages: 9,990 control characters (six bytes each in JSON) and one character with
      // 14,900 combining marks, within 10,000 characters and 40,000 bytes: each about 90 KB of JSON, 2.7 MB in all.
      let heavy = String(repeating: "\u{1}", count: 9_990) + "e" + String(repeating: "\u{301}", count: 14_900)
      for index in 0..<30 {
        let sent = try await send(room, as: room.ann, text: "\(index)" + heavy)
        try #require(sent.status == 201, "\(sent.json)")
      }
      var seen: [String] = []
      var pages = 0
      var query = "?limit=100"
      while true {
        pages += 1
        let response = try await client.send(
          "GET", "/v1/conversations/\(room.channel)/messages\(query)", headers: room.bob)
        #expect(response.body.count <= (1 << 20) + 100_000, "one page is held near 1 MiB: \(response.body.count)")
        let messages = try #require(response.json["messages"] as? [[String: Any]])
        #expect(!messages.isEmpty)
        seen.insert(
          contentsOf: messages.compactMap { ($0["text"] as? String)?.prefix { $0 != "\u{1}" } }.map(String.init), at: 0)
        guard response.json["hasMore"] as? Bool == true, let oldest = messages.first?["id"] as? String else { break }
        query = "?before=\(oldest)&limit=100"
      }
      #expect(seen == (0..<30).map(String.init), "every message once, in order")
      #expect(pages >= 3, "30 messages under a limit of 100 came in \(pages) pages, cut by their weight")

      // Brief, the thirty come in one small page: who sent each and when, without text or images.
      let brief = try await client.send(
        "GET", "/v1/conversations/\(room.channel)/messages?limit=100&brief=true", headers: room.bob)
      let messages = try #require(brief.json["messages"] as? [[String: Any]])
      #expect(messages.count == 30 && brief.json["hasMore"] as? Bool == false)
      #expect(brief.body.count < 30 * 400, "a brief message weighs a few hundred bytes: \(brief.body.count)")
      #expect(messages.allSatisfy { $0["brief"] as? Bool == true && $0["text"] as? String == "" && $0["id"] is String })
      #expect(Set(messages.compactMap { $0["senderId"] as? String }).count == 1)
      #expect(messages.compactMap { $0["seq"] as? Int } == Array(1...30), "numbered 1 to 30, brief ones too")
      let newest = try await client.send(
        "GET", "/v1/conversations/\(room.channel)/messages?limit=1&brief=true", headers: room.bob)
      #expect((newest.json["messages"] as? [[String: Any]])?.first?["seq"] as? Int == 30, "the cheap newest number")
      let bad = try await client.send(
        "GET", "/v1/conversations/\(room.channel)/messages?brief=yes", headers: room.bob)
      #expect(bad.status == 400)
    }
  }

  @Test("Unread counts follow what others sent and what was read; a DM room shows its last message")
  func unread() async throws {
    try await withSandbox { client in
      let room = try await room(client)
      var last: String?
      for text in ["one", "two", "three"] {
        last = try await send(room, as: room.ann, text: text).json["id"] as? String
      }
      func channel(_ headers: [String: String]) async throws -> [String: Any]? {
        let list = try await client.send("GET", "/v1/workspaces/\(room.workspace)/channels", headers: headers)
        return (list.json["channels"] as? [[String: Any]])?.first
      }
      #expect(try await channel(room.bob)?["unreadCount"] as? Int == 3)
      #expect(try await channel(room.ann)?["unreadCount"] as? Int == 0, "one's own messages are read")
      let read = try await client.send(
        "POST", "/v1/conversations/\(room.channel)/read", json: ["messageId": try #require(last)], headers: room.bob)
      #expect(read.json["unreadCount"] as? Int == 0)
      #expect(try await channel(room.bob)?["unreadCount"] as? Int == 0)

      let dm = try #require(
        try await client.send(
          "POST", "/v1/workspaces/\(room.workspace)/dms", json: ["userId": room.bobID], headers: room.ann
        )
        .json["id"] as? String)
      _ = try await send(room, as: room.ann, to: dm, text: "psst")
      let rooms = try await client.send("GET", "/v1/workspaces/\(room.workspace)/dms", headers: room.bob).json["dms"]
      let first = (rooms as? [[String: Any]])?.first
      #expect(first?["unreadCount"] as? Int == 1)
      #expect((first?["lastMessage"] as? [String: Any])?["text"] as? String == "psst")
    }
  }
}
