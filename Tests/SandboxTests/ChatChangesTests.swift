import Foundation
import Sandbox
import Testing

/// SandboxAPI §7's changes to sent messages over real HTTP: edits and deletions by their sender only, reactions by any
/// member, replies counted on their parent, each numbered in its conversation's changes and listed after a number.
@Suite("Sandbox chat changes", .timeLimit(.minutes(3)))
struct ChatChangesTests {
  let messages = ChatMessagesTests()

  func path(_ room: ChatMessagesTests.Room, _ message: String, _ rest: String = "") -> String {
    "/v1/conversations/\(room.channel)/messages/\(message)\(rest)"
  }

  func sent(_ room: ChatMessagesTests.Room, as headers: [String: String], _ text: String, replyTo: String? = nil)
    async throws -> [String: Any]
  {
    var fields = [("text", text)]
    if let replyTo { fields.append(("replyTo", replyTo)) }
    let (body, type) = ChatMessagesTests.multipart(fields)
    let response = try await room.client.send(
      "POST", "/v1/conversations/\(room.channel)/messages", raw: body,
      headers: headers.merging(["Content-Type": type]) { $1 })
    #expect(response.status == 201, "\(String(decoding: response.body, as: UTF8.self))")
    return response.json
  }

  func changes(_ room: ChatMessagesTests.Room, since: Int) async throws -> [String: Any] {
    try await room.client.send("GET", "/v1/conversations/\(room.channel)/changes?since=\(since)", headers: room.bob)
      .json
  }

  @Test("An edit by its sender changes the text and sets editedAt; anyone else's is E403; the change is listed once")
  func edit() async throws {
    try await withSandbox { client in
      let room = try await messages.room(client)
      let message = try await sent(room, as: room.ann, "helo")
      let id = try #require(message["id"] as? String)
      let before = try await changes(room, since: 0)
      let version = try #require(before["version"] as? Int)
      #expect(message["version"] as? Int == version)
      #expect(message["editedAt"] is NSNull)

      let edited = try await client.send(
        "PATCH", path(room, id), json: ["text": "hello", "changeId": "e1"], headers: room.ann)
      #expect(edited.status == 200)
      #expect(edited.json["text"] as? String == "hello")
      #expect(edited.json["editedAt"] as? Int != nil)
      #expect(edited.json["version"] as? Int == version + 1)
      // The same change again is applied once: no new number.
      let again = try await client.send(
        "PATCH", path(room, id), json: ["text": "hello", "changeId": "e1"], headers: room.ann)
      #expect(again.json["version"] as? Int == version + 1)

      let refused = try await client.send("PATCH", path(room, id), json: ["text": "mine now"], headers: room.bob)
      #expect(refused.status == 403)
      #expect(refused.json["errorCode"] as? String == "E403")
      let unknown = try await client.send("PATCH", path(room, "m999"), json: ["text": "x"], headers: room.ann)
      #expect(unknown.status == 404)

      let listed = try await changes(room, since: version)
      let changed = try #require(listed["messages"] as? [[String: Any]])
      #expect(changed.map { $0["text"] as? String } == ["hello"])
      #expect(listed["version"] as? Int == version + 1)
      #expect(listed["hasMore"] as? Bool == false)
    }
  }

  @Test("A deletion leaves a tombstone with its place and number, and removes the images; it takes no other change")
  func delete() async throws {
    try await withSandbox { client in
      let room = try await messages.room(client)
      let first = try #require(try await sent(room, as: room.ann, "one")["id"] as? String)
      let image = try await messages.send(room, as: room.ann, text: "two", images: [ChatMessagesTests.png])
      let second = try #require(image.json["id"] as? String)
      let imagePath = try #require((image.json["images"] as? [String])?.first)
      _ = try await client.send("POST", path(room, second, "/reactions"), json: ["emoji": "👍"], headers: room.bob)

      #expect(try await client.send("DELETE", path(room, second), headers: room.bob).status == 403)
      let deleted = try await client.send("DELETE", path(room, second), headers: room.ann)
      #expect(deleted.status == 200)
      #expect(deleted.json["deleted"] as? Bool == true)
      #expect(deleted.json["text"] as? String == "")
      #expect((deleted.json["images"] as? [Any])?.isEmpty == true)
      #expect((deleted.json["reactions"] as? [Any])?.isEmpty == true)
      #expect(deleted.json["seq"] as? Int == 2)
      #expect(try await client.send("GET", imagePath, headers: room.bob).status == 404)
      // Again: the tombstone, unchanged.
      let again = try await client.send("DELETE", path(room, second), headers: room.ann)
      #expect(again.json["version"] as? Int == deleted.json["version"] as? Int)
      #expect(
        try await client.send("PATCH", path(room, second), json: ["text": "back"], headers: room.ann).status == 404)

      let page = try await client.send("GET", "/v1/conversations/\(room.channel)/messages", headers: room.bob).json
      let listed = try #require(page["messages"] as? [[String: Any]])
      #expect(listed.map { $0["id"] as? String } == [first, second])
      #expect(listed.last?["deleted"] as? Bool == true)
    }
  }

  @Test("Reactions: one per member and emoji however often added, removed by their member only, in the order chosen")
  func reactions() async throws {
    try await withSandbox { client in
      let room = try await messages.room(client)
      let id = try #require(try await sent(room, as: room.ann, "react to me")["id"] as? String)
      for headers in [room.ann, room.bob, room.bob] {
        let added = try await client.send("POST", path(room, id, "/reactions"), json: ["emoji": "👍"], headers: headers)
        #expect(added.status == 200)
      }
      _ = try await client.send("POST", path(room, id, "/reactions"), json: ["emoji": "🇰🇷"], headers: room.bob)
      var reactions =
        try #require(
          try await client.send("GET", "/v1/conversations/\(room.channel)/changes?since=0", headers: room.ann)
            .json["messages"] as? [[String: Any]]
        ).last?["reactions"] as? [[String: Any]]
      #expect(reactions?.map { $0["emoji"] as? String } == ["👍", "🇰🇷"])
      #expect((reactions?.first?["userIds"] as? [String])?.count == 2)

      let removed = try await client.send(
        "DELETE", path(room, id, "/reactions?emoji=%F0%9F%91%8D"), headers: room.ann)
      #expect(removed.status == 200)
      reactions = removed.json["reactions"] as? [[String: Any]]
      #expect(reactions?.first?["userIds"] as? [String] == [room.bobID])

      for emoji in ["", "a", "1", "👍👍", String(repeating: "x", count: 100)] {
        let refused = try await client.send(
          "POST", path(room, id, "/reactions"), json: ["emoji": emoji], headers: room.bob)
        #expect(refused.status == 400, "\(emoji)")
      }
    }
  }

  @Test("A reply counts on its parent and is its latest; a thread pages its replies; a deleted reply counts no more")
  func replies() async throws {
    try await withSandbox { client in
      let room = try await messages.room(client)
      let parent = try #require(try await sent(room, as: room.ann, "question")["id"] as? String)
      _ = try await sent(room, as: room.ann, "unrelated")
      let first = try #require(try await sent(room, as: room.bob, "answer", replyTo: parent)["id"] as? String)
      let second = try await sent(room, as: room.ann, "thanks", replyTo: parent)
      #expect(second["replyTo"] as? String == parent)
      let secondID = try #require(second["id"] as? String)

      let thread = try await client.send(
        "GET", "/v1/conversations/\(room.channel)/messages?thread=\(parent)&limit=1", headers: room.bob
      ).json
      #expect((thread["messages"] as? [[String: Any]])?.map { $0["id"] as? String } == [secondID])
      #expect(thread["hasMore"] as? Bool == true)
      let older = try await client.send(
        "GET", "/v1/conversations/\(room.channel)/messages?thread=\(parent)&before=\(secondID)", headers: room.bob
      ).json
      #expect((older["messages"] as? [[String: Any]])?.map { $0["id"] as? String } == [first])

      func parentNow() async throws -> [String: Any]? {
        let all = try await client.send("GET", "/v1/conversations/\(room.channel)/messages", headers: room.bob).json
        return (all["messages"] as? [[String: Any]])?.first { $0["id"] as? String == parent }
      }
      #expect(try await parentNow()?["replyCount"] as? Int == 2)
      #expect(try await parentNow()?["lastReplyId"] as? String == secondID)
      _ = try await client.send("DELETE", path(room, secondID), headers: room.ann)
      #expect(try await parentNow()?["replyCount"] as? Int == 1)
      #expect(try await parentNow()?["lastReplyId"] as? String == first)

      let (body, type) = ChatMessagesTests.multipart([("text", "to nothing"), ("replyTo", "m999")])
      let orphan = try await client.send(
        "POST", "/v1/conversations/\(room.channel)/messages", raw: body,
        headers: room.ann.merging(["Content-Type": type]) { $1 })
      #expect(orphan.status == 404)
    }
  }

  @Test("Changes list in change order after a number, a page at a time, and a non-member sees none")
  func changesPaged() async throws {
    try await withSandbox { client in
      let room = try await messages.room(client)
      var ids: [String] = []
      for index in 0..<5 { ids.append(try #require(try await sent(room, as: room.ann, "m\(index)")["id"] as? String)) }
      let start = try #require(try await changes(room, since: 0)["version"] as? Int)
      for id in ids.reversed() {
        _ = try await client.send("PATCH", path(room, id), json: ["text": "edited \(id)"], headers: room.ann)
      }
      let page = try await client.send(
        "GET", "/v1/conversations/\(room.channel)/changes?since=\(start)&limit=3", headers: room.bob
      ).json
      #expect((page["messages"] as? [[String: Any]])?.map { $0["id"] as? String } == Array(ids.reversed().prefix(3)))
      #expect(page["hasMore"] as? Bool == true)
      #expect(
        try await client.send("GET", "/v1/conversations/\(room.channel)/changes?since=-1", headers: room.bob)
          .status == 400)

      let signup = try await client.send(
        "POST", "/v1/auth/signup", json: ["email": "eve@example.com", "password": "password-1"])
      let eve = ["Authorization": "Bearer \(signup.json["accessToken"] as? String ?? "")"]
      #expect(try await client.send("GET", "/v1/conversations/\(room.channel)/changes", headers: eve).status == 403)
    }
  }
}

/// SandboxAPI §7's mentions and read positions over real HTTP: `@nickname` as a word of its own, counted unread for
/// the member mentioned until they read past it; how far each member has read.
@Suite("Sandbox chat mentions and reads", .timeLimit(.minutes(3)))
struct ChatMentionsAndReadsTests {
  let messages = ChatMessagesTests()
  let changes = ChatChangesTests()

  @Test("@nickname mentions a member, whatever the case, not inside a word or an address; edits mention anew")
  func mentions() async throws {
    try await withSandbox { client in
      let room = try await messages.room(client)
      // Nicknames default to the email's local part: ann and bob.
      let cases: [(String, [String])] = [
        ("hi @bob", [room.bobID]), ("@BOB!", [room.bobID]), ("@bobby no", []), ("mail bob@bob.dev", []),
        ("x@bob", []), ("@bob and @ann", [room.bobID]),
      ]
      for (text, expected) in cases {
        let sent = try await changes.sent(room, as: room.ann, text)
        let mentioned = sent["mentions"] as? [String] ?? []
        #expect(mentioned.filter { $0 == room.bobID } == expected, "\(text): \(mentioned)")
      }
      let id = try #require(try await changes.sent(room, as: room.ann, "plain")["id"] as? String)
      let edited = try await client.send(
        "PATCH", changes.path(room, id), json: ["text": "now @bob"], headers: room.ann)
      #expect(edited.json["mentions"] as? [String] == [room.bobID])
    }
  }

  @Test("Unread mentions count for the member mentioned until they read past them; reads list each member's")
  func unreadMentionsAndReads() async throws {
    try await withSandbox { client in
      let room = try await messages.room(client)
      _ = try await changes.sent(room, as: room.ann, "@bob one")
      let second = try #require(try await changes.sent(room, as: room.ann, "nothing for bob")["id"] as? String)
      let third = try #require(try await changes.sent(room, as: room.ann, "@bob three")["id"] as? String)
      func channel() async throws -> [String: Any]? {
        let listed =
          try await client.send(
            "GET", "/v1/workspaces/\(room.workspace)/channels", headers: room.bob
          ).json["channels"] as? [[String: Any]]
        return listed?.first { $0["id"] as? String == room.channel }
      }
      #expect(try await channel()?["unreadMentionCount"] as? Int == 2)
      let read = try await client.send(
        "POST", "/v1/conversations/\(room.channel)/read", json: ["messageId": second], headers: room.bob)
      #expect(read.json["unreadCount"] as? Int == 1 && read.json["unreadMentionCount"] as? Int == 1)
      #expect(try await channel()?["unreadMentionCount"] as? Int == 1)

      let reads = try await client.send("GET", "/v1/conversations/\(room.channel)/reads", headers: room.bob).json
      let listed = try #require(reads["reads"] as? [[String: Any]])
      let bobs = listed.first { $0["userId"] as? String == room.bobID }
      #expect(bobs?["messageId"] as? String == second && bobs?["seq"] as? Int == 2)
      // Ann's own message moved hers to the newest.
      #expect(listed.contains { $0["userId"] as? String != room.bobID && $0["messageId"] as? String == third })
    }
  }
}
