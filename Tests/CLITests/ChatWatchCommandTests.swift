import Foundation
import Logging
import Sandbox
import TestSupport
import Testing

extension ChatCommandTests {
  /// A served Sandbox with ada and demo each signed in on a data directory of their own: the options of each, and the
  /// directories to remove.
  static func adaAndDemo() async throws -> (RunningSandbox, ada: [String], demo: [String], directories: [URL]) {
    let sandbox = try await servedSandbox()
    let directories = try [Keel.dataDirectory("ada"), Keel.dataDirectory("demo")]
    let ada = Keel.options(sandbox, directories[0])
    let demo = Keel.options(sandbox, directories[1])
    try await login("ada@keel.dev", ada)
    try await login("demo@keel.dev", demo)
    return (sandbox, ada, demo, directories)
  }

  /// The `--json` objects `watch` printed so far, one per line.
  static func views(_ watch: Spawned) -> [[String: Any]] {
    String(decoding: watch.output, as: UTF8.self).split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
  }

  /// Waits until `watch` printed a view for which `condition` holds, and returns it.
  static func view(_ watch: Spawned, where condition: @escaping ([String: Any]) -> Bool) async -> [String: Any]? {
    let seen = await poll(for: .seconds(40)) { views(watch).contains(where: condition) || !watch.process.isRunning }
    return seen ? views(watch).first(where: condition) : nil
  }

  /// The channel named `name` in `view`.
  static func channel(_ name: String, in view: [String: Any]) -> [String: Any]? {
    (view["channels"] as? [[String: Any]])?.first { $0["name"] as? String == name }
  }

  @Test("watch: the channels and DMs once, then again as a message, a DM and a new channel change them; Ctrl-C is 130")
  func watchFollowsTheLists() async throws {
    let (sandbox, adaOptions, demoOptions, directories) = try await Self.adaAndDemo()
    defer { for directory in directories { try? FileManager.default.removeItem(at: directory) } }
    let watch = try Spawned(ChildProcess.builtExecutable("keel"), ["chat", "watch", "--json"] + demoOptions)
    #expect(await watch.waitForErrors(containing: "watching Keel"), "\(watch.errors)")

    // Printed once: the seeded workspace as demo sees it.
    let first = try #require(await Self.view(watch) { $0["workspace"] != nil }, "\(watch.errors)")
    #expect((first["workspace"] as? [String: Any])?["name"] as? String == "Keel")
    let general = try #require(Self.channel("general", in: first))
    #expect(general["joined"] as? Bool == true && general["member_count"] as? Int == 2, "\(general)")
    let random = try #require(Self.channel("random", in: first))
    #expect(random["joined"] as? Bool == false && random["member_count"] as? Int == 1, "\(random)")
    let rooms = try #require(first["dms"] as? [[String: Any]])
    #expect(rooms.count == 1 && rooms.first?["with"] as? [String] == ["ada"], "\(rooms)")
    let welcome = try #require(rooms.first?["last_message"] as? [String: Any], "\(rooms)")
    #expect(welcome["sender"] as? String == "ada" && welcome["created_at"] is String && welcome["id"] is String)
    let unread = try #require(general["unread_count"] as? Int)
    #expect(Self.views(watch).count == 1, "printed once, not once per list")

    // Ada's message in #general: one more unread for demo, pushed.
    #expect(try await Keel.run(["chat", "send", "general", "Hello, watchers"] + adaOptions).status == 0)
    #expect(
      await Self.view(watch) { Self.channel("general", in: $0)?["unread_count"] as? Int == unread + 1 } != nil,
      "\(Self.views(watch).last ?? [:])")

    // A DM from Ada: the room's newest message.
    #expect(try await Keel.run(["chat", "send", "@demo", "Just us"] + adaOptions).status == 0)
    let dm = await Self.view(watch) { view in
      let room = (view["dms"] as? [[String: Any]])?.first
      return (room?["last_message"] as? [String: Any])?["text"] as? String == "Just us"
    }
    #expect(dm != nil, "\(Self.views(watch).last ?? [:])")

    // A channel Ada creates shows, not joined, with its one member.
    #expect(try await Keel.run(["chat", "channel", "create", "news"] + adaOptions).status == 0)
    let news = await Self.view(watch) { Self.channel("news", in: $0) != nil }
    #expect(news.flatMap { Self.channel("news", in: $0) }?["joined"] as? Bool == false)
    #expect(news.flatMap { Self.channel("news", in: $0) }?["member_count"] as? Int == 1)

    kill(watch.process.processIdentifier, SIGINT)
    #expect(await watch.finish() == 130, "\(watch.errors)")
    await sandbox.stop()
  }

  @Test("watch ends with 67 when its workspace is deleted")
  func watchEndsWithTheWorkspace() async throws {
    let (sandbox, adaOptions, demoOptions, directories) = try await Self.adaAndDemo()
    defer { for directory in directories { try? FileManager.default.removeItem(at: directory) } }
    let watch = try Spawned(ChildProcess.builtExecutable("keel"), ["chat", "watch"] + demoOptions)
    #expect(await Self.printed(watch, "#general"), "\(watch.errors)")
    #expect(try await Keel.run(["chat", "workspace", "delete", "Keel"] + adaOptions).status == 0)
    #expect(await watch.finish(within: .seconds(60)) == 67, "\(watch.errors)")
    #expect(watch.errors.contains("was deleted"), "\(watch.errors)")
    await sandbox.stop()
  }

  @Test("watch ends with 77 when the server it reconnects to no longer knows its session")
  func watchEndsWithTheSession() async throws {
    let first = try await Self.servedSandbox()
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let options = Keel.options(first, directory)
    try await Self.login("demo@keel.dev", options)
    let watch = try Spawned(ChildProcess.builtExecutable("keel"), ["chat", "watch", "--log-level", "debug"] + options)
    #expect(await Self.printed(watch, "#general"), "\(watch.errors)")
    // A server that restarted without its state, on the same address.
    await first.stop()
    var configuration = SandboxConfiguration(accounts: SandboxConfiguration.tryingAccounts, logLevel: .error)
    configuration.seedsChat = true
    configuration.port = try #require(first.baseURL.port)
    let second = try await Sandbox.start(configuration)
    #expect(await watch.finish(within: .seconds(90)) == 77, "\(watch.errors)")
    #expect(watch.errors.contains("The session ended"), "\(watch.errors)")
    ChatCommandTests.expectPromptCleanup(watch)
    await second.stop()
  }
}
