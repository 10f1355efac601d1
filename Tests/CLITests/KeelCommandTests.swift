import Foundation
import Logging
import Sandbox
import TestSupport
import Testing

/// `keel` run as a user runs it: help, argument errors with their exit codes, `--json` shapes, and state that
/// carries across invocations in the data directory.
@Suite("keel, end to end", .timeLimit(.minutes(10)))
struct KeelCommandTests {
  @Test("keel --help lists every command and the exit codes; every subcommand's help exits 0")
  func help() async throws {
    let help = try await Keel.run(["--help"])
    #expect(help.status == 0)
    let text = help.lines.joined(separator: "\n")
    for command in ["demo", "users", "auth", "profile", "chat", "events", "images", "sandbox"] {
      #expect(text.contains(command))
    }
    for code in ["64", "65", "66", "69", "70", "75", "77"] {
      #expect(text.contains("  \(code)  "), "exit code \(code)")
    }
    let commands = [
      ["demo"], ["users"], ["users", "create"], ["users", "import"], ["users", "get"], ["users", "update"],
      ["users", "search"], ["auth", "login"], ["auth", "signup"], ["auth", "whoami"], ["auth", "logout"],
      ["profile", "show"], ["profile", "set"], ["events", "track"],
      ["events", "flush"], ["events", "status"], ["images", "get"], ["images", "stats"], ["images", "clear"],
      ["chat"], ["chat", "workspaces"], ["chat", "channels"], ["chat", "dms"], ["chat", "history"], ["chat", "send"],
      ["chat", "tail"],
    ]
    for command in commands {
      let run = try await Keel.run(command + ["--help"])
      #expect(run.status == 0, "keel \(command.joined(separator: " ")) --help")
      #expect(run.lines.contains { $0.hasPrefix("OVERVIEW:") }, "keel \(command.joined(separator: " ")) --help")
    }
  }

  @Test(
    "Bad input gets one sentence and its documented exit code, with nothing sent",
    arguments: [
      (["users", "create", "--no-such-flag", "a:A"], Int32(64), "Unknown option"),
      (["users", "create", "nocolon"], 64, "is not ID:NICKNAME"),
      (["users", "create", "alice:"], 65, "nickname of 'alice' is empty"),
      (
        ["users", "create"] + (1...11).map { "u\($0):U\($0)" }, 65,
        "at most 10 users per call; this call has 11. Use keel users import FILE"
      ),
      (["users", "import", "/no/such/file.csv"], 66, "Cannot read /no/such/file.csv"),
      (["users", "get", "alice", "--base-url", "http://127.0.0.1:1"], 69, "Cannot reach the server"),
      (["auth", "whoami"], 77, "Nobody is signed in"),
      (["users", "create", ":Nobody"], 65, "User '': A user id cannot be empty"),
      (["users", "create", "a:A", "a:B"], 65, "User 'a': The user id a appears twice"),
      (["users", "import", "/tmp"], 66, "it is a directory"),
      (["images", "get", "ftp://example.com/a.png"], 65, "is not an http(s) URL"),
    ])
  func badInput(arguments: [String], status: Int32, sentence: String) async throws {
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try await Keel.run(arguments + ["--data-dir", directory.path])
    #expect(run.status == status, "\(run.errors)")
    #expect(run.errors.contains(sentence), "\(run.errors)")
    #expect(!run.errors.contains("Fatal error") && !run.errors.contains("Stack dump"))
  }

  @Test("import validates every row first: bad rows are listed by line and nothing is sent")
  func importBadRows() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let file = directory.appendingPathComponent("users.csv")
      try """
      user_id,nickname,profile_url
      alice,Alice,
      ,Nobody,
      carol,,
      alice,Alice again,
      "dave,Dave
      """.write(to: file, atomically: true, encoding: .utf8)

      let run = try await Keel.run([
        "users", "import", file.path, "--base-url", sandbox.baseURL.absoluteString, "--data-dir", directory.path,
      ])

      #expect(run.status == 65)
      for problem in [
        "line 3: A user id cannot be empty", "line 4: the nickname is empty", "line 5: the user_id alice", "line 6",
      ] {
        #expect(run.errors.contains(problem), "\(problem) in \(run.errors)")
      }
      #expect(try await sandbox.control.statistics().responses("POST /v3/users", status: 200) == 0)
    }
  }

  @Test("import --json creates every user of a CSV file and prints the summary as JSON")
  func importJSON() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let file = directory.appendingPathComponent("users.csv")
      try "user_id,nickname\r\nann,Ann\r\n\"bo,b\",\"Bob \"\"the\"\" builder\"\r\n"
        .write(to: file, atomically: true, encoding: .utf8)

      let run = try await Keel.run([
        "users", "import", file.path, "--json", "--base-url", sandbox.baseURL.absoluteString, "--data-dir",
        directory.path,
      ])

      #expect(run.status == 0, "\(run.errors)")
      let summary = try Keel.json(run)
      let created = try #require(summary["created"] as? [[String: Any]])
      #expect(created.compactMap { $0["user_id"] as? String } == ["ann", "bo,b"])
      #expect(created.last?["nickname"] as? String == "Bob \"the\" builder")
      #expect((summary["failed"] as? [Any])?.isEmpty == true)
      #expect(summary["stopped"] as? Bool == false)
      #expect(try await sandbox.control.statistics().responses("POST /v3/users", status: 200) == 2)
    }
  }

  @Test("Ctrl-C during an import stops once the request in flight has finished: no user is left half created")
  func importInterrupted() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let file = directory.appendingPathComponent("users.csv")
      try (["user_id,nickname"] + (1...8).map { "u\($0),User \($0)" }).joined(separator: "\n")
        .write(to: file, atomically: true, encoding: .utf8)

      // WHEN Ctrl-C comes once the first user is done (progress on stderr: "0/8 done", then "1/8 done…")
      let run = try await ChildProcess.run(
        Keel.binary,
        arguments: [
          "users", "import", file.path, "--base-url", sandbox.baseURL.absoluteString, "--data-dir", directory.path,
        ], killAfter: .seconds(60), killAfterLines: (count: 3, thenMicroseconds: 0), signal: SIGINT,
        watchingStandardError: true)

      // THEN it stops with exit 130, and its summary matches the server: no user is left half created
      #expect(!run.killed && run.status == 130, "\(run.errors)")
      #expect(run.errors.contains("Stopping once the request in flight has finished"))
      #expect(run.errors.contains("Stopped:"))
      let created = try await sandbox.control.statistics().responses("POST /v3/users", status: 200)
      let output = run.lines.joined(separator: "\n")
      #expect((1..<8).contains(created))
      #expect(output.contains("Created \(created) of 8 users"), "\(output)")
      #expect(output.contains("Not sent: \(8 - created) users."))
      #expect(!output.contains("may or may not exist"))
    }
  }

  @Test("A JSON import names the entry at fault: an unknown key, a number for a string")
  func importJSONErrors() async throws {
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("users.json")
    let entries = [
      #"{"user_id":"ann","nickname":"Ann"}"#, #"{"user_id":"bo","profileUrl":"x","nickname":"Bo"}"#,
      #"{"user_id":4,"nickname":"N"}"#,
    ]
    try "[\(entries.joined(separator: ","))]".write(to: file, atomically: true, encoding: .utf8)
    let run = try await Keel.run(["users", "import", file.path, "--data-dir", directory.path])
    #expect(run.status == 65)
    #expect(run.errors.contains("entry 2: unknown key profileUrl"), "\(run.errors)")
    #expect(run.errors.contains("entry 3: user_id and nickname must be strings"), "\(run.errors)")
  }

  @Test("A second command on a data directory in use fails at once with the holder's pid (exit 74)")
  func oneCommandPerDataDirectory() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let target = Keel.options(sandbox, directory)
      async let first = Keel.run(["users", "create", "a:A", "b:B", "c:C"] + target)  // about 2 s at 1 request/s
      let lock = directory.appendingPathComponent(".keel.lock")
      let locked = await poll(for: .seconds(20)) {
        !((try? String(contentsOf: lock, encoding: .utf8))?.isEmpty ?? true)
      }
      #expect(locked, "the first command took the lock")
      let second = try await Keel.run(["users", "get", "a"] + target)
      #expect(second.status == 74)
      #expect(second.errors.contains("Another keel command (pid"), "\(second.errors)")
      #expect(try await first.status == 0)
    }
  }

  @Test("--json errors are a document on standard output with the kind and exit code")
  func jsonError() async throws {
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try await Keel.run(["users", "create", "alice:", "--json", "--data-dir", directory.path])
    #expect(run.status == 65)
    let error = try #require(try Keel.json(run)["error"] as? [String: Any])
    #expect(error["kind"] as? String == "invalidInput")
    #expect(error["exit_code"] as? Int == 65)
    #expect((error["message"] as? String)?.contains("empty") == true)
  }

  @Test("An event tracked in one invocation stays on disk and is delivered by a later flush")
  func eventsAcrossInvocations() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let target = ["--base-url", sandbox.baseURL.absoluteString, "--data-dir", directory.path, "--json"]

      let tracked = try await Keel.run(["events", "track", "signed_up", "--property", "plan=pro"] + target)
      #expect(tracked.status == 0, "\(tracked.errors)")
      #expect(try Keel.json(tracked)["pending"] as? Int == 1)
      #expect(try await sandbox.control.statistics().counter("eventUniques") == 0, "not delivered yet")
      let flushed = try await Keel.run(["events", "flush"] + target)

      #expect(flushed.status == 0, "\(flushed.errors)")
      #expect(try Keel.json(flushed)["pending"] as? Int == 0)
      #expect(try await sandbox.control.statistics().counter("eventUniques") == 1)
      let after = try await Keel.run(["events", "status"] + target)
      #expect(try Keel.json(after)["pending"] as? Int == 0)
    }
  }

  @Test("Signed in by one invocation, whoami and logout work in later ones (tokens in the data directory)")
  func sessionAcrossInvocations() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let target = Keel.options(sandbox, directory)

      let wrong = try await Keel.run(["auth", "login", "--email", "demo@keel.dev", "--password", "nope"] + target)
      #expect(wrong.status == 77)
      let login = try await Keel.run(
        ["auth", "login", "--email", "demo@keel.dev", "--password", "demo-password"] + target)
      #expect(login.status == 0, "\(login.errors)")
      let whoami = try await Keel.run(["auth", "whoami", "--json"] + target)
      #expect(try Keel.json(whoami)["email"] as? String == "demo@keel.dev")
      let logout = try await Keel.run(["auth", "logout"] + target)
      #expect(logout.status == 0)
      let gone = try await Keel.run(["auth", "whoami"] + target)
      #expect(gone.status == 77)
    }
  }

  @Test("The embedded Sandbox keeps users and sessions in the data directory from one command to the next")
  func embeddedSandboxAcrossInvocations() async throws {
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let data = ["--data-dir", directory.path]

    let created = try await Keel.run(["users", "create", "alice:Alice"] + data)
    #expect(created.status == 0, "\(created.errors)")
    #expect(created.errors.contains("using the embedded Sandbox"))
    let found = try await Keel.run(["users", "search", "Alice", "--json"] + data)
    #expect((try Keel.json(found)["users"] as? [[String: Any]])?.first?["user_id"] as? String == "alice")
    let login = try await Keel.run(["auth", "login", "--email", "demo@keel.dev", "--password", "demo-password"] + data)
    #expect(login.status == 0)
    let whoami = try await Keel.run(["auth", "whoami"] + data)
    #expect(whoami.status == 0, "\(whoami.errors)")
  }

  @Test("keel demo --quick runs every step on an embedded Sandbox and exits 0")
  func demo() async throws {
    let run = try await Keel.run(["demo", "--quick"])
    #expect(run.status == 0, "\(run.lines.joined(separator: "\n"))\n\(run.errors)")
    #expect(run.lines.filter { $0.contains("✔") }.count == 7)
    #expect(
      run.lines.contains {
        $0.contains("✔ B's socket dropped; A sent 10, one with an image; B reconnected and has all 10")
          && $0.contains("A's edit reached B live, and B's reaction and reply reached A")
      },
      "the chat step: \(run.lines)")
    #expect(run.lines.last?.hasPrefix("All 7 steps passed") == true)
  }
}
