import Foundation
import Sandbox
import TestSupport
import Testing

/// `keel chat channel …` and `keel chat workspace …`: the management calls, run as two users of a served Sandbox.
@Suite("keel chat channel and workspace", .serialized, .timeLimit(.minutes(3)))
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
