import Foundation
import Sandbox
import TestSupport
import Testing

/// `keel chat channel …` and `keel chat workspace …`: the management calls, run as two users of a served Sandbox.
@Suite("keel chat channel and workspace", .serialized, .timeLimit(.minutes(10)))
struct ChatManageCommandTests {
  @Test("Create, rename, invite, join, leave and delete, with members listed; the owner's calls refused to others (77)")
  func manage() async throws {
    let sandbox = try await ChatCommandTests.servedSandbox()
    let ada = try Keel.dataDirectory("ada")
    let demo = try Keel.dataDirectory("demo")
    defer {
      try? FileManager.default.removeItem(at: ada)
      try? FileManager.default.removeItem(at: demo)
    }
    let asAda = Keel.options(sandbox, ada)
    let asDemo = Keel.options(sandbox, demo)
    try await ChatCommandTests.login("ada@keel.dev", asAda)
    try await ChatCommandTests.login("demo@keel.dev", asDemo)
    func run(_ arguments: [String], _ options: [String], expecting status: Int32 = 0) async throws -> ChildProcess.Run {
      let run = try await Keel.run(["chat"] + arguments + options)
      #expect(run.status == status, "\(arguments): \(run.errors)")
      return run
    }
    let team = ["--workspace", "Team 2"]

    // Demo makes a workspace and a channel, and invites Ada.
    let created = try await run(["workspace", "create", "Team"], asDemo)
    #expect(created.lines.first?.hasPrefix("Created Team (w") == true, "\(created.lines)")
    _ = try await run(["workspace", "rename", "Team", "Team 2"], asDemo)
    _ = try await run(["workspace", "invite", "ada@keel.dev"] + team, asDemo)
    let people = try await run(["workspace", "members"] + team, asDemo)
    #expect(people.lines.count == 2, "\(people.lines)")
    #expect(people.lines.contains { $0.hasPrefix("demo <demo@keel.dev>") && $0.hasSuffix("(owner)") })
    _ = try await run(["channel", "create", "plans"] + team, asDemo)
    let renamed = try await run(["channel", "rename", "#plans", "ideas"] + team, asDemo)
    #expect(renamed.lines == ["Renamed #plans to #ideas."])

    // Ada joins; the owner's calls are refused her, with the server's reason.
    _ = try await run(["channel", "join", "ideas"] + team, asAda)
    let members = try await run(["channel", "members", "ideas", "--json"] + team, asAda)
    let listed = try #require(try Keel.json(members)["members"] as? [[String: Any]])
    #expect(Set(listed.compactMap { $0["nickname"] as? String }) == ["ada", "demo"])
    #expect(listed.allSatisfy { ($0["id"] as? String)?.isEmpty == false }, "\(listed)")
    for refused in [
      ["channel", "rename", "ideas", "mine"] + team, ["channel", "delete", "ideas"] + team,
      ["workspace", "rename", "Team 2", "Ada's"], ["workspace", "delete", "Team 2"],
    ] {
      let run = try await run(refused, asAda, expecting: 77)
      #expect(run.errors.contains("E403"), "the server's reason: \(run.errors)")
    }

    // Demo opens a DM with Ada by name; there was none.
    #expect(try await run(["dms"] + team, asDemo).lines == ["You have no DMs in Team 2."])
    _ = try await run(["send", "@ada", "Welcome to Team 2"] + team, asDemo)
    #expect(try await run(["dms"] + team, asDemo).lines.first?.hasPrefix("@ada") == true)

    // Ada leaves; demo deletes the channel, then the workspace.
    #expect(try await run(["channel", "leave", "ideas"] + team, asAda).lines == ["Left #ideas."])
    _ = try await run(["channel", "delete", "ideas"] + team, asDemo)
    let channels = try await run(["channels"] + team, asDemo)
    #expect(!channels.lines.contains { $0.hasPrefix("#ideas") }, "\(channels.lines)")
    _ = try await run(["workspace", "delete", "Team 2"], asDemo)
    _ = try await run(["workspace", "members"] + team, asDemo, expecting: 67)

    // Each says its arguments.
    let help = try await Keel.run(["chat", "channel", "rename", "--help"])
    #expect(help.lines.contains { $0.contains("<channel>") && $0.contains("<name>") }, "\(help.lines)")
    await sandbox.stop()
  }
}

/// `keel images get` on the chat backend's images: as the signed-in member, through that account's cache.
@Suite("keel images get: chat images", .serialized, .timeLimit(.minutes(10)))
struct ChatImageCommandTests {
  @Test("A member gets a chat image (network, then disk); someone else gets 67, nobody signed in 77")
  func chatImage() async throws {
    let sandbox = try await ChatCommandTests.servedSandbox()
    let ada = try Keel.dataDirectory("ada")
    let demo = try Keel.dataDirectory("demo")
    let eve = try Keel.dataDirectory("eve")
    defer { for directory in [ada, demo, eve] { try? FileManager.default.removeItem(at: directory) } }
    try await ChatCommandTests.login("ada@keel.dev", Keel.options(sandbox, ada))
    try await ChatCommandTests.login("demo@keel.dev", Keel.options(sandbox, demo))
    let image = demo.appendingPathComponent("dot.png")
    try Data(ChatCommandTests.png).write(to: image)
    let sent = try await Keel.run(
      ["chat", "send", "general", "A dot", "--image", image.path, "--json"] + Keel.options(sandbox, demo))
    #expect(sent.status == 0, "\(sent.errors)")
    let url = try #require((try Keel.json(sent)["images"] as? [String])?.first)
    let path = try #require(URL(string: url)?.path)
    #expect(path.hasPrefix("/v1/chat-images/"))

    let file = ada.appendingPathComponent("got.png")
    for source in ["network", "disk"] {
      let got = try await Keel.run(["images", "get", path, "--output", file.path] + Keel.options(sandbox, ada))
      #expect(got.status == 0, "\(got.errors)")
      #expect(got.lines.first?.contains("from the \(source)") == true, "\(got.lines)")
      #expect(try Data(contentsOf: file) == Data(ChatCommandTests.png))
    }

    // Eve has an account but is in no workspace of theirs: the server does not show her the image.
    _ = try await ChatCommandTests.call(
      sandbox, "POST", "/v1/auth/signup", json: ["email": "eve@example.com", "password": "eve-password"])
    try await ChatCommandTests.login("eve@example.com", Keel.options(sandbox, eve))
    let refused = try await Keel.run(["images", "get", path] + Keel.options(sandbox, eve))
    #expect(refused.status == 67, "\(refused.errors)")
    let stranger = try Keel.dataDirectory("stranger")
    defer { try? FileManager.default.removeItem(at: stranger) }
    let nobody = try await Keel.run(["images", "get", url] + Keel.options(sandbox, stranger))
    #expect(nobody.status == 77, "\(nobody.errors)")
    await sandbox.stop()
  }
}
