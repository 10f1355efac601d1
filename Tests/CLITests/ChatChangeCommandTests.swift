import Foundation
import Sandbox
import TestSupport
import Testing

/// The `keel chat edit`, `delete`, `react` and `send --reply-to` contract, two users on one served Sandbox: exit codes
/// as documented, `history --json`'s new keys, and a `tail --json` that shows each change with its type.
@Suite("keel chat changes", .serialized, .timeLimit(.minutes(3)))
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
    await sandbox.stop()
  }
}
