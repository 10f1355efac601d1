import Foundation
import Logging
import Sandbox
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The `keel chat` contract, as a new user meets it: the embedded Sandbox's workspace to try, sending and
/// reading, a `tail` that shows what a second terminal sends (the same user on the same data directory, and another
/// user on a served Sandbox), and input refused before anything is sent.
@Suite("keel chat", .serialized, .timeLimit(.minutes(10)))
struct ChatCommandTests {
  /// A Sandbox like `keel sandbox serve`'s: the two accounts to try and their workspace.
  static func servedSandbox() async throws -> RunningSandbox {
    var configuration = SandboxConfiguration(accounts: SandboxConfiguration.tryingAccounts, logLevel: .error)
    configuration.seedsChat = true
    return try await Sandbox.start(configuration)
  }

  /// Signs `email` in on `options`, whose password is the local part's, then `-password`.
  static func login(_ email: String, _ options: [String]) async throws {
    let password = "\(email.prefix { $0 != "@" })-password"
    let run = try await Keel.run(["auth", "login", "--email", email, "--password", password] + options)
    #expect(run.status == 0, "\(run.errors)")
  }

  /// `keel chat tail` in the background.
  static func tail(_ arguments: [String]) throws -> Spawned {
    try Spawned(ChildProcess.builtExecutable("keel"), ["chat", "tail"] + arguments)
  }

  /// Waits until `keel` printed a line containing `text` on standard output.
  static func printed(_ keel: Spawned, _ text: String) async -> Bool {
    await poll(for: .seconds(40)) {
      String(decoding: keel.output, as: UTF8.self).contains(text) || !keel.process.isRunning
    } && String(decoding: keel.output, as: UTF8.self).contains(text)
  }

  @Test("On a fresh data directory: sign in, the workspace to try, its channels and DMs, send, and read it back")
  func newUser() async throws {
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let options = ["--data-dir", directory.path]
    try await Self.login("demo@keel.dev", options)

    let workspaces = try await Keel.run(["chat", "workspaces"] + options)
    #expect(workspaces.status == 0, "\(workspaces.errors)")
    #expect(workspaces.lines.contains { $0.hasPrefix("* ") && $0.contains("Keel") }, "\(workspaces.lines)")
    let channels = try await Keel.run(["chat", "channels"] + options)
    #expect(channels.lines.contains { $0.hasPrefix("#general") && $0.contains(" joined") }, "\(channels.lines)")
    #expect(channels.lines.contains { $0.hasPrefix("#random") && $0.contains("not joined") }, "\(channels.lines)")
    let dms = try await Keel.run(["chat", "dms"] + options)
    #expect(dms.lines.contains { $0.hasPrefix("@ada") && $0.contains("direct message") }, "\(dms.lines)")

    let missing = try await Keel.run(["chat", "send", "general", "Gone", "--image", "/nonexistent/x.png"] + options)
    #expect(missing.status == 66)
    #expect(
      missing.errors == "keel: No image file at /nonexistent/x.png; nothing was sent.\n",
      "one sentence, before even the embedded Sandbox starts")

    let sent = try await Keel.run(["chat", "send", "#general", "Hello from the CLI"] + options)
    #expect(sent.status == 0, "\(sent.errors)")
    #expect(sent.lines.first?.hasPrefix("Sent to #general (m") == true, "\(sent.lines)")
    let history = try await Keel.run(["chat", "history", "general", "--json"] + options)
    #expect(history.status == 0, "\(history.errors)")
    let messages = try #require(try Keel.json(history)["messages"] as? [[String: Any]])
    #expect(messages.last?["text"] as? String == "Hello from the CLI")
    #expect(messages.last?["sender"] as? String == "demo")
    #expect(messages.first?["sender_id"] as? String == "user-ada", "the welcome message comes first")

    let again = try await Keel.run(["chat", "history", "general"] + options)
    #expect(again.lines.last?.hasSuffix("demo: Hello from the CLI") == true, "kept between runs: \(again.lines)")
  }

  @Test("A tail on the embedded Sandbox shows what a send from a second terminal on the same data directory sends")
  func tailAndSendShareTheDirectory() async throws {
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let options = ["--data-dir", directory.path]
    try await Self.login("demo@keel.dev", options)
    let tail = try Self.tail(["general", "--last", "1"] + options)
    #expect(await tail.waitForErrors(containing: "following #general"), "\(tail.errors)")
    #expect(await Self.printed(tail, "Welcome to Keel"), "the newest message first: \(tail.errors)")

    let sent = try await Keel.run(["chat", "send", "general", "Live from terminal two"] + options)
    #expect(sent.status == 0, "\(sent.errors)")
    #expect(sent.errors.contains("that keel chat (pid \(tail.process.processIdentifier)) runs"), "\(sent.errors)")
    #expect(await Self.printed(tail, "demo: Live from terminal two"), "\(tail.errors)")

    let other = try await Keel.run(["auth", "whoami"] + options)
    #expect(other.status == 74, "other commands still wait: \(other.errors)")
    #expect(other.errors.contains("keel chat commands are using the data directory"), "\(other.errors)")

    kill(tail.process.processIdentifier, SIGINT)
    #expect(await tail.finish() == 130)
    let lines = String(decoding: tail.output, as: UTF8.self).split(separator: "\n")
    #expect(lines.count == 2, "each message once: \(lines)")
  }

  @Test("Ten sends at once beside a tail on one data directory: each exits 0, each message goes once, with its image")
  func concurrentSendsBesideATail() async throws {
    let directory = try Keel.dataDirectory()
    let image = directory.appendingPathComponent("dot.png")
    defer { try? FileManager.default.removeItem(at: directory) }
    let options = ["--data-dir", directory.path]
    try await Self.login("demo@keel.dev", options)
    try Data(Self.png).write(to: image)
    let tail = try Self.tail(["general", "--last", "0"] + options)
    #expect(await tail.waitForErrors(containing: "following #general"), "\(tail.errors)")

    let runs = try await withThrowingTaskGroup(of: (Int, ChildProcess.Run).self) { group in
      for number in 0..<10 {
        group.addTask {
          (number, try await Keel.run(["chat", "send", "general", "Burst \(number)", "--image", image.path] + options))
        }
      }
      return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
    }
    for (number, run) in runs.sorted(by: { $0.key < $1.key }) {
      #expect(run.status == 0, "send \(number): \(run.errors)")
    }
    for number in 0..<10 { #expect(await Self.printed(tail, "Burst \(number)"), "\(tail.errors)") }
    kill(tail.process.processIdentifier, SIGINT)
    #expect(await tail.finish() == 130)
    let history = try await Keel.run(["chat", "history", "general", "--limit", "50", "--json"] + options)
    let messages = try #require(try Keel.json(history)["messages"] as? [[String: Any]], "\(history.errors)")
    let bursts = messages.filter { ($0["text"] as? String)?.hasPrefix("Burst ") == true }
    #expect(bursts.count == 10, "each once: \(bursts.map { $0["text"] ?? "" })")
    #expect(bursts.allSatisfy { ($0["images"] as? [Any])?.count == 1 }, "each with its image")
  }

  @Test("Another user's tail on a served Sandbox shows the message live, as JSON lines; it follows across a drop")
  func anotherUserFollows() async throws {
    let sandbox = try await Self.servedSandbox()
    let ada = try Keel.dataDirectory("ada")
    let demo = try Keel.dataDirectory("demo")
    defer {
      try? FileManager.default.removeItem(at: ada)
      try? FileManager.default.removeItem(at: demo)
    }
    let adaOptions = Keel.options(sandbox, ada)
    let demoOptions = Keel.options(sandbox, demo)
    try await Self.login("ada@keel.dev", adaOptions)
    try await Self.login("demo@keel.dev", demoOptions)
    let tail = try Self.tail(["#general", "--last", "0", "--json"] + adaOptions)
    #expect(await tail.waitForErrors(containing: "following #general"), "\(tail.errors)")

    let first = try await Keel.run(["chat", "send", "general", "One"] + demoOptions)
    #expect(first.status == 0, "\(first.errors)")
    #expect(await Self.printed(tail, #""text":"One""#), "\(tail.errors)")
    try await sandbox.control.socketIOFault(drop: true)
    let second = try await Keel.run(["chat", "send", "general", "Two"] + demoOptions)
    #expect(second.status == 0, "\(second.errors)")
    #expect(await Self.printed(tail, #""text":"Two""#), "after the drop: \(tail.errors)")

    kill(tail.process.processIdentifier, SIGINT)
    #expect(await tail.finish() == 130)
    let lines = String(decoding: tail.output, as: UTF8.self).split(separator: "\n").map(String.init)
    let texts = lines.compactMap { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["text"] as? String
    }
    #expect(texts == ["One", "Two"], "one JSON object per message, each once: \(lines)")
    await sandbox.stop()
  }

  @Test("A tail shows within 30 s what the server never pushed while its connection stayed up; each message has a seq")
  func tailFindsSilencedMessages() async throws {
    let sandbox = try await Self.servedSandbox()
    let ada = try Keel.dataDirectory("ada")
    let demo = try Keel.dataDirectory("demo")
    defer {
      try? FileManager.default.removeItem(at: ada)
      try? FileManager.default.removeItem(at: demo)
    }
    let adaOptions = Keel.options(sandbox, ada)
    let demoOptions = Keel.options(sandbox, demo)
    try await Self.login("ada@keel.dev", adaOptions)
    try await Self.login("demo@keel.dev", demoOptions)
    let tail = try Self.tail(["#general", "--last", "1", "--json"] + adaOptions)
    #expect(await tail.waitForErrors(containing: "following #general"), "\(tail.errors)")
    #expect(await Self.printed(tail, #""seq":1"#), "the welcome message, numbered: \(tail.output)")

    // The server sends nothing for three seconds (pings come every 25 s: the connection stays up).
    try await sandbox.control.socketIOFault(silence: .seconds(3))
    let sent = try await Keel.run(["chat", "send", "general", "Said in the silence"] + demoOptions)
    #expect(sent.status == 0, "\(sent.errors)")
    let shown = await poll(for: .seconds(30)) {
      String(decoding: tail.output, as: UTF8.self).contains("Said in the silence")
    }
    #expect(shown, "\(tail.errors)")
    let lines = String(decoding: tail.output, as: UTF8.self).split(separator: "\n")
    // The message lines; the sender's read position (a "read" line) may come too, while the silence lasts or after.
    let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
      .filter { $0["type"] as? String == "message" }
    #expect(objects.map { $0["seq"] as? Int } == [1, 2], "\(lines)")
    kill(tail.process.processIdentifier, SIGINT)
    #expect(await tail.finish() == 130)
    await sandbox.stop()
  }

  @Test("A tail ends with 77 soon after its session ends, though its socket was open and quiet")
  func tailEndsWithTheSession() async throws {
    // A session of 60 s (its refresh grant), and pings every second: the tail must be following before the session
    // ends, and under the whole suite a login and a tail's start can take longer than the 15 s it had.
    var configuration = SandboxConfiguration(
      accounts: SandboxConfiguration.tryingAccounts, refreshTokenTTL: .seconds(60), logLevel: .error)
    configuration.seedsChat = true
    configuration.socketIOPingInterval = .seconds(1)
    let sandbox = try await Sandbox.start(configuration)
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let options = Keel.options(sandbox, directory)
    try await Self.login("demo@keel.dev", options)
    // Debug logs, so that a failure shows how far the tail got (the socket's states, the refusals, the refresh).
    let tail = try Self.tail(["general", "--last", "0", "--log-level", "debug"] + options)
    #expect(await tail.waitForErrors(containing: "following #general"), "\(tail.errors)")
    #expect(await tail.finish(within: .seconds(150)) == 77, "\(tail.errors)")
    #expect(tail.errors.contains("The session ended"), "\(tail.errors)")
    await sandbox.stop()
  }

  @Test("A tail ends with 77 when the server it reconnects to no longer knows its session")
  func tailEndsWhenTheServerForgot() async throws {
    let first = try await Self.servedSandbox()
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let options = Keel.options(first, directory)
    try await Self.login("demo@keel.dev", options)
    // Debug logs, so that a failure shows how far the tail got.
    let tail = try Self.tail(["general", "--last", "0", "--log-level", "debug"] + options)
    #expect(await tail.waitForErrors(containing: "following #general"), "\(tail.errors)")
    // A server that restarted without its state, on the same address.
    await first.stop()
    var configuration = SandboxConfiguration(accounts: SandboxConfiguration.tryingAccounts, logLevel: .error)
    configuration.seedsChat = true
    configuration.port = try #require(first.baseURL.port)
    let second = try await Sandbox.start(configuration)
    #expect(await tail.finish(within: .seconds(90)) == 77, "\(tail.errors)")
    #expect(tail.errors.contains("The session ended"), "\(tail.errors)")
    Self.expectPromptCleanup(tail)
    await second.stop()
  }

  /// Expects that `keel`'s cleanup (closing the conversation, shutting the chat down) did not run out of time. Now and
  /// then on a loaded machine (once in eight runs under load, once in CI), a command whose session had ended did not
  /// get through its stop: the command now ends anyway, and the known issue says so until the cause is found.
  static func expectPromptCleanup(_ keel: Spawned) {
    withKnownIssue("the chat's shutdown after an ended session sometimes never returns", isIntermittent: true) {
      #expect(!keel.errors.contains("ending anyway"), "\(keel.errors)")
    }
  }

  /// `method path` on `sandbox` as the holder of `token`, with a JSON body; the answer's JSON object.
  static func call(
    _ sandbox: RunningSandbox, _ method: String, _ path: String, token: String? = nil, json: [String: String] = [:]
  ) async throws -> [String: Any] {
    var request = URLRequest(url: URL(string: sandbox.baseURL.absoluteString + path)!)
    request.httpMethod = method
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    if method != "GET" {
      request.httpBody = try JSONSerialization.data(withJSONObject: json)
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    let (data, _) = try await URLSession(configuration: .ephemeral).data(for: request)
    return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
  }

  @Test(
    "A nickname two DM partners share is refused with both listed (65) and nothing sent; @email and the id pick one; dms tells them apart"
  )
  func impostor() async throws {
    let sandbox = try await Self.servedSandbox()
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let options = Keel.options(sandbox, directory)
    // Eve signs up as "ada", is invited to Keel, and opens a DM with demo.
    let eve = try await Self.call(
      sandbox, "POST", "/v1/auth/signup",
      json: ["email": "eve@example.com", "password": "password-1", "nickname": "ada"])
    let ada = try await Self.call(
      sandbox, "POST", "/v1/auth/login", json: ["email": "ada@keel.dev", "password": "ada-password"])
    let demo = try await Self.call(
      sandbox, "POST", "/v1/auth/login", json: ["email": "demo@keel.dev", "password": "demo-password"])
    let adaToken = try #require(ada["accessToken"] as? String)
    let workspaces = try await Self.call(sandbox, "GET", "/v1/workspaces", token: adaToken)
    let keel = try #require((workspaces["workspaces"] as? [[String: Any]])?.first?["id"] as? String)
    _ = try await Self.call(
      sandbox, "POST", "/v1/workspaces/\(keel)/members", token: adaToken, json: ["email": "eve@example.com"])
    let demoID = try #require((demo["user"] as? [String: Any])?["id"] as? String)
    let room = try await Self.call(
      sandbox, "POST", "/v1/workspaces/\(keel)/dms", token: try #require(eve["accessToken"] as? String),
      json: ["userId": demoID])
    #expect(room["id"] != nil, "\(room)")
    try await Self.login("demo@keel.dev", options)

    let ambiguous = try await Keel.run(["chat", "send", "@ada", "For ada only"] + options)
    #expect(ambiguous.status == 65, "\(ambiguous.errors)")
    #expect(ambiguous.errors.contains("names 2 people"), "\(ambiguous.errors)")
    #expect(
      ambiguous.errors.contains("<ada@keel.dev>") && ambiguous.errors.contains("<eve@example.com>"),
      "\(ambiguous.errors)")
    let stats = try await sandbox.control.statistics()
    #expect(stats.requests("POST /v1/conversations/:conversation/messages") == 0, "nothing was sent")

    let byEmail = try await Keel.run(["chat", "send", "@ada@keel.dev", "For ada only"] + options)
    #expect(byEmail.status == 0, "\(byEmail.errors)")
    let history = try await Keel.run(["chat", "history", "@user-ada", "--json"] + options)
    let messages = try #require(try Keel.json(history)["messages"] as? [[String: Any]], "\(history.errors)")
    #expect(messages.last?["text"] as? String == "For ada only", "the real ada's DM, named by her id")

    let dms = try await Keel.run(["chat", "dms"] + options)
    #expect(dms.lines.contains { $0.hasPrefix("@ada <ada@keel.dev>") }, "\(dms.lines)")
    #expect(dms.lines.contains { $0.hasPrefix("@ada <eve@example.com>") }, "\(dms.lines)")
    await sandbox.stop()
  }

  @Test(
    "send refuses 6 images, a file that is not an image and a text over 40,000 bytes (65), and a missing file (66), in one sentence, before anything is sent"
  )
  func refusedBeforeSending() async throws {
    let sandbox = try await Self.servedSandbox()
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let options = Keel.options(sandbox, directory)
    try await Self.login("demo@keel.dev", options)
    let image = directory.appendingPathComponent("dot.png")
    try Data(Self.png).write(to: image)
    let six = Array(repeating: ["--image", image.path], count: 6).flatMap { $0 }
    let tooMany = try await Keel.run(["chat", "send", "general", "Six"] + six + options)
    #expect(tooMany.status == 65)
    #expect(tooMany.errors == "keel: A message carries at most 5 images, not 6; nothing was sent.\n")
    let missing = try await Keel.run(["chat", "send", "general", "Gone", "--image", "/nonexistent/x.png"] + options)
    #expect(missing.status == 66)
    #expect(missing.errors == "keel: No image file at /nonexistent/x.png; nothing was sent.\n")
    // A text file named .png, and a text within 10,000 characters but over 40,000 bytes: 65, naming the user's file.
    let fake = directory.appendingPathComponent("notes.png")
    try "not an image".write(to: fake, atomically: true, encoding: .utf8)
    let notImage = try await Keel.run(["chat", "send", "general", "Fake", "--image", fake.path] + options)
    #expect(notImage.status == 65, "\(notImage.errors)")
    #expect(notImage.errors.contains("\(fake.path) is not a PNG, JPEG, GIF or WebP image"), "\(notImage.errors)")
    let heavy = "e" + String(repeating: "\u{301}", count: 20_000)
    let tooHeavy = try await Keel.run(["chat", "send", "general", heavy] + options)
    #expect(tooHeavy.status == 65, "\(tooHeavy.errors)")
    #expect(tooHeavy.errors.contains("40000 bytes of UTF-8, not 1 and 40001"), "\(tooHeavy.errors)")
    let stats = try await sandbox.control.statistics()
    #expect(stats.requests("POST /v1/conversations/:conversation/messages") == 0)
    #expect(stats.requests("GET /v1/workspaces") == 0, "refused before even the workspace was looked up")

    let withImage = try await Keel.run(["chat", "send", "general", "A dot", "--image", image.path] + options)
    #expect(withImage.status == 0, "\(withImage.errors)")
    #expect(withImage.lines.first?.hasSuffix("with 1 image.") == true, "\(withImage.lines)")
    await sandbox.stop()
  }

  /// A 1×1 PNG.
  static let png: [UInt8] = [
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0D, 0x49,
    0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x60, 0x60, 0x60, 0xF8, 0x0F, 0x00, 0x01, 0x04, 0x01, 0x00, 0x5F, 0xE5, 0xC3,
    0x4B, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
  ]
}
