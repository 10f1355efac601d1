import Foundation
import Sandbox
import TestSupport
import Testing

/// The `keel chat edit`, `delete`, `react` and `send --reply-to` contract, two users on one served Sandbox: exit codes
/// as documented, `history --json`'s new keys, and a `tail --json` that shows each change with its type.
@Suite("keel chat changes", .serialized, .timeLimit(.minutes(10)))
struct ChatChangeCommandTests {
  @Test("Edit, delete, react and reply: 0 once the server has it, 77 for another's, 67 unknown; a tail types each")
  func changes() async throws {
    let sandbox = try await ChatCommandTests.servedSandbox()
    let ada = try Keel.dataDirectory("ada")
    let demo = try Keel.dataDirectory("demo")
    defer {
      try? FileManager.default.removeItem(at: ada)
      try? FileManager.default.removeItem(at: demo)
    }
    let adaOptions = Keel.options(sandbox, ada)
    let demoOptions = Keel.options(sandbox, demo)
    try await ChatCommandTests.login("ada@keel.dev", adaOptions)
    try await ChatCommandTests.login("demo@keel.dev", demoOptions)
    let tail = try ChatCommandTests.tail(["#general", "--last", "0", "--json"] + adaOptions)
    #expect(await tail.waitForErrors(containing: "following #general"), "\(tail.errors)")

    let sent = try await Keel.run(["chat", "send", "general", "Hello", "--json"] + demoOptions)
    #expect(sent.status == 0, "\(sent.errors)")
    let id = try #require(try Keel.json(sent)["id"] as? String)
    let reply = try await Keel.run(["chat", "send", "general", "Reply", "--reply-to", id, "--json"] + demoOptions)
    #expect(reply.status == 0, "\(reply.errors)")
    #expect(try Keel.json(reply)["reply_to"] as? String == id)
    let replyID = try #require(try Keel.json(reply)["id"] as? String)

    let edited = try await Keel.run(["chat", "edit", "general", id, "Hello, all"] + demoOptions)
    #expect(edited.status == 0, "\(edited.errors)")
    #expect(edited.lines == ["Edited \(id) in #general."])
    let reacted = try await Keel.run(["chat", "react", "general", id, "👍"] + adaOptions)
    #expect(reacted.status == 0, "\(reacted.errors)")

    let notMine = try await Keel.run(["chat", "edit", "general", id, "mine now"] + adaOptions)
    #expect(notMine.status == 77, "\(notMine.errors)")
    #expect(try await Keel.run(["chat", "delete", "general", id] + adaOptions).status == 77)
    let unknown = try await Keel.run(["chat", "edit", "general", "m999999", "x"] + demoOptions)
    #expect(unknown.status == 67, "\(unknown.errors)")
    let unknownReply = try await Keel.run(["chat", "send", "general", "x", "--reply-to", "m999999"] + demoOptions)
    #expect(unknownReply.status == 67, "\(unknownReply.errors)")
    let notAnEmoji = try await Keel.run(["chat", "react", "general", id, "a"] + adaOptions)
    #expect(notAnEmoji.status == 65, "\(notAnEmoji.errors)")

    // Ada's own message moves how far she read, and mentions demo.
    let mention = try await Keel.run(["chat", "send", "general", "Thanks @demo", "--json"] + adaOptions)
    #expect(mention.status == 0, "\(mention.errors)")
    #expect(try Keel.json(mention)["mentions"] as? [String] == ["demo"])
    let seenByAda = try await Keel.run(["chat", "history", "general", "--json"] + demoOptions)
    let demoSees = try #require(try Keel.json(seenByAda)["messages"] as? [[String: Any]])
    #expect(demoSees.first { $0["id"] as? String == id }?["read_by"] as? [String] == ["ada"], "\(demoSees)")

    let history = try await Keel.run(["chat", "history", "general", "--json"] + adaOptions)
    let messages = try #require(try Keel.json(history)["messages"] as? [[String: Any]])
    let hello = try #require(messages.first { $0["id"] as? String == id })
    #expect(hello["text"] as? String == "Hello, all")
    #expect(hello["edited_at"] is String)
    #expect(hello["deleted"] as? Bool == false)
    #expect(hello["reply_to"] is NSNull)
    #expect(hello["reply_count"] as? Int == 1)
    #expect(hello["reactions"] as? [String: [String]] == ["👍": ["ada"]])
    #expect(hello["seq"] as? Int != nil)
    #expect(messages.first { $0["id"] as? String == replyID }?["reply_to"] as? String == id)

    let deleted = try await Keel.run(["chat", "delete", "general", replyID] + demoOptions)
    #expect(deleted.status == 0, "\(deleted.errors)")
    #expect(await ChatCommandTests.printed(tail, #""type":"deleted""#), "\(tail.errors)")

    kill(tail.process.processIdentifier, SIGINT)
    #expect(await tail.finish() == 130)
    let lines = String(decoding: tail.output, as: UTF8.self).split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    let seen = lines.map { "\($0["type"] as? String ?? "?") \($0["id"] as? String ?? "?")" }
    for expected in ["message \(id)", "message \(replyID)", "edited \(id)", "reaction \(id)", "deleted \(replyID)"] {
      #expect(seen.contains(expected), "\(expected) in \(seen)")
    }
    let reads = lines.filter { $0["type"] as? String == "read" }
    #expect(reads.contains { $0["user"] as? String == "demo" && $0["message_id"] as? String != nil }, "\(reads)")
    await sandbox.stop()
  }

  @Test("Search finds Korean and English words and prefixes, not a deleted message, with the server unreachable")
  func search() async throws {
    let sandbox = try await ChatCommandTests.servedSandbox()
    let demo = try Keel.dataDirectory("demo")
    defer { try? FileManager.default.removeItem(at: demo) }
    let options = Keel.options(sandbox, demo)
    try await ChatCommandTests.login("demo@keel.dev", options)
    var ids: [String] = []
    for text in ["The deploy went fine", "안녕하세요, 서울에서 만나요", "deploy again tomorrow"] {
      let sent = try await Keel.run(["chat", "send", "general", text, "--json"] + options)
      #expect(sent.status == 0, "\(sent.errors)")
      ids.append(try #require(try Keel.json(sent)["id"] as? String))
    }
    #expect(try await Keel.run(["chat", "delete", "general", ids[2]] + options).status == 0)
    #expect(try await Keel.run(["chat", "history", "general"] + options).status == 0)
    await sandbox.stop()

    let english = try await Keel.run(["chat", "search", "depl", "--json"] + options)
    #expect(english.status == 0, "the server is gone, the store is not: \(english.errors)")
    let hits = try #require(try Keel.json(english)["hits"] as? [[String: Any]])
    #expect(hits.map { $0["message_id"] as? String } == [ids[0]], "not the deleted one: \(hits)")
    #expect(hits.first?["conversation"] as? String == "#general")
    #expect(hits.first?["highlights"] as? [String] == ["deploy"])
    #expect(hits.first?["sender"] as? String == "demo")
    let korean = try await Keel.run(["chat", "search", "안녕", "--conversation", "general"] + options)
    #expect(korean.status == 0, "\(korean.errors)")
    #expect(korean.lines == ["#general \(ids[1]) demo: [안녕하세요], 서울에서 만나요"], "\(korean.lines)")

    let nothing = try await Keel.run(["chat", "search", "!!!"] + options)
    #expect(nothing.status == 65, "\(nothing.errors)")
    let nowhere = try await Keel.run(["chat", "search", "deploy", "--conversation", "nowhere"] + options)
    #expect(nowhere.status == 67, "\(nowhere.errors)")
  }

  @Test("A tail says who begins and stops typing: JSON lines with --json, standard error without")
  func typing() async throws {
    let sandbox = try await ChatCommandTests.servedSandbox()
    let ada = try Keel.dataDirectory("ada")
    defer { try? FileManager.default.removeItem(at: ada) }
    let options = Keel.options(sandbox, ada)
    try await ChatCommandTests.login("ada@keel.dev", options)
    let history = try await Keel.run(["chat", "history", "general", "--json"] + options)
    let channel = try #require(
      (try Keel.json(history)["messages"] as? [[String: Any]])?.first?["conversation_id"] as? String)
    let json = try ChatCommandTests.tail(["#general", "--last", "0", "--json"] + options)
    #expect(await json.waitForErrors(containing: "following #general"), "\(json.errors)")
    // What the server relays of another member's typing (SandboxAPI §7), as a push to every socket here: again
    // until the tail shows it (its socket connects once it has caught up; a push that came before the tail
    // followed it is not news). The same state again prints nothing more.
    func push(_ typing: Bool, until shown: @escaping () -> Bool) async throws -> Bool {
      for _ in 0..<200 {
        _ = try await sandbox.control.pushSocketIOEvent(
          "typing", args: [["conversationId": channel, "userId": "user-demo", "typing": typing]])
        if await poll(for: .milliseconds(200), until: shown) { return true }
      }
      return false
    }
    func printed(_ keel: Spawned, _ text: String) -> () -> Bool {
      { String(decoding: keel.output, as: UTF8.self).contains(text) }
    }
    #expect(try await push(true, until: printed(json, #""typing":true"#)), "\(json.errors)")
    #expect(try await push(false, until: printed(json, #""typing":false"#)), "\(json.errors)")
    kill(json.process.processIdentifier, SIGINT)
    #expect(await json.finish() == 130)
    let lines = String(decoding: json.output, as: UTF8.self).split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    let typed = lines.filter { $0["type"] as? String == "typing" }
    #expect(typed.map { $0["typing"] as? Bool } == [true, false])
    #expect(typed.allSatisfy { $0["user"] as? String == "demo" && $0["conversation_id"] as? String == channel })

    let human = try ChatCommandTests.tail(["#general", "--last", "0"] + options)
    #expect(await human.waitForErrors(containing: "following #general"), "\(human.errors)")
    #expect(try await push(true) { human.errors.contains("keel: demo is typing…") }, "\(human.errors)")
    kill(human.process.processIdentifier, SIGINT)
    #expect(await human.finish() == 130)
    #expect(human.output.isEmpty, "typing goes to standard error, not among the messages")
    await sandbox.stop()
  }
}
