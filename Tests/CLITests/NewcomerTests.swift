import Foundation
import Sandbox
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a newcomer runs into first: global options wherever they are put, and `events flush` and `status` that say
/// what happened in words and send when asked.
@Suite("The CLI as a newcomer uses it", .timeLimit(.minutes(10)))
struct NewcomerTests {
  @Test("Global options work before the subcommand as after it")
  func globalOptionsBeforeTheSubcommand() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let options = ["--base-url", sandbox.baseURL.absoluteString, "--data-dir=\(directory.path)", "--json"]

      let created = try await Keel.run(options + ["users", "create", "alice:Alice"])
      let before = try await Keel.run(options + ["users", "get", "alice"])
      let after = try await Keel.run(["users", "get", "alice"] + options)

      #expect(created.status == 0, "\(created.errors)")
      #expect(before.status == 0, "\(before.errors)")
      #expect(try Keel.json(before)["user_id"] as? String == "alice")
      #expect(before.lines == after.lines)
    }
  }

  @Test("A server that refuses an upload: flush exits 70 saying so, status shows it, the next flush sends at once")
  func refusedUpload() async throws {
    try await Self.withOneEvent(failingItsUpload: SandboxFault(route: "/v1/events/batch", status: 503, count: 1)) {
      sandbox, target in
      let refused = try await Keel.run(["events", "flush"] + target)
      let status = try await Keel.run(["events", "status"] + target)
      // The failed upload set a retry date at least half a second away: only an explicit flush goes before it.
      let again = try await Keel.run(["events", "flush"] + target)
      let cleared = try await Keel.run(["events", "status"] + target)

      #expect(refused.status == 70, "\(refused.errors)")
      #expect(refused.errors.contains("HTTP 503"), "\(refused.errors)")
      #expect(
        status.lines == ["1 pending; last failure: the server answered HTTP 503, code E503: Injected fault"],
        "\(status.lines)")
      #expect(again.status == 0, "\(again.errors)")
      #expect(again.lines == ["1 delivered, 0 pending"])
      #expect(cleared.lines == ["0 pending"])
      #expect(try await sandbox.control.statistics().counter("eventUniques") == 1)
    }
  }

  @Test("A connection dropped without an answer is the network's (exit 69), in words, not a URLError's name")
  func droppedConnection() async throws {
    let drop = SandboxFault(route: "/v1/events/batch", dropConnectionRate: 1, count: 1)
    try await Self.withOneEvent(failingItsUpload: drop) { _, target in
      let dropped = try await Keel.run(["events", "flush"] + target)

      #expect(dropped.status == 69, "\(dropped.errors)")
      #expect(dropped.errors.contains("1 event could not be delivered"), "\(dropped.errors)")
      #expect(dropped.errors.contains("could not be reached"), "\(dropped.errors)")
      for name in ["badServerResponse", "networkConnectionLost", "timedOut", "NSURLErrorDomain"] {
        #expect(!dropped.errors.contains(name), "\(dropped.errors)")
      }
    }
  }

  /// Runs `body` with a Sandbox whose next upload meets `fault`, one event tracked in a fresh data directory, and the
  /// options that point `keel` at both.
  private static func withOneEvent(
    failingItsUpload fault: SandboxFault, _ body: (RunningSandbox, [String]) async throws -> Void,
    function: String = #function
  ) async throws {
    try await Keel.withSandbox(
      { sandbox, directory in
        let target = Keel.options(sandbox, directory)
        _ = try await Keel.run(["events", "track", "signed_up"] + target)
        try await sandbox.control.addFault(fault)
        try await body(sandbox, target)
      }, function: function)
  }

  @Test("keel --version prints the version and exits 0")
  func version() async throws {
    let run = try await Keel.run(["--version"])
    #expect(run.status == 0)
    #expect(run.lines.count == 1 && run.lines.first?.isEmpty == false, "\(run.lines)")
  }

  @Test("With --json, a usage error is a JSON error document too, in snake_case like every --json output")
  func jsonUsageError() async throws {
    let run = try await Keel.run(["users", "get", "--json"])
    #expect(run.status == 64)
    let error = try #require(try Keel.json(run)["error"] as? [String: Any], "\(run.lines)")
    #expect(error["kind"] as? String == "usage")
    #expect(error["exit_code"] as? Int == 64)
  }

  @Test("Signing in with only an application id (no chat backend) is a usage error (64), nothing sent to localhost")
  func loginWithoutBackend() async throws {
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try await Keel.run([
      "auth", "login", "--email", "a@example.com", "--password", "secret", "--app-id", "app", "--api-token", "t",
      "--data-dir", directory.path,
    ])
    #expect(run.status == 64, "\(run.errors)")
    #expect(run.errors.contains("--base-url"), "\(run.errors)")
  }

  @Test("A user the server does not have is exit 67 (not found), not a server error")
  func userNotFound() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let run = try await Keel.run(
        ["users", "get", "nobody", "--base-url", sandbox.baseURL.absoluteString, "--data-dir", directory.path])
      #expect(run.status == 67, "\(run.errors)")
      #expect(run.errors.contains("no such user"), "\(run.errors)")
    }
  }

  @Test("Import inputs that are not files of rows: /dev/zero is too large, a JSON object is named, a FIFO is read")
  func unusualImportInputs() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let target = Keel.options(sandbox, directory)
      let zero = try await Keel.run(["users", "import", "/dev/zero"] + target)
      #expect(zero.status == 65, "\(zero.errors)")
      #expect(zero.errors.contains("larger than 32 MiB") && !zero.errors.contains("permission"), "\(zero.errors)")

      let object = directory.appendingPathComponent("user.json")
      try Data(#"{"user_id": "a", "nickname": "A"}"#.utf8).write(to: object)
      let single = try await Keel.run(["users", "import", object.path] + target)
      #expect(single.status == 65, "\(single.errors)")
      #expect(single.errors.contains("is a JSON object") && !single.errors.contains("header"), "\(single.errors)")

      let fifo = directory.appendingPathComponent("rows")
      #expect(mkfifo(fifo.path, 0o600) == 0)
      let writer = Task.detached {
        FileHandle(forWritingAtPath: fifo.path)?.write(Data("user_id,nickname\nfifo-1,Fifo One\n".utf8))
      }
      let piped = try await Keel.run(["users", "import", fifo.path] + target)
      await writer.value
      #expect(piped.status == 0, "\(piped.errors)")
      #expect(piped.lines.last?.hasPrefix("Created 1 of 1 user in ") == true, "\(piped.lines)")
      #expect(try await sandbox.control.statistics().requests("POST /v3/users") == 1)
    }
  }

  @Test("Messages use the user's words: no API parameter names, no '..', counts in the plural, a measured time")
  func messagesInTheUsersWords() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let target = Keel.options(sandbox, directory)
      let blank = try await Keel.run(["users", "search", " "] + target)
      #expect(blank.status == 65, "\(blank.errors)")
      #expect(blank.errors.contains("nickname") && !blank.errors.contains("nicknameMatches"), "\(blank.errors)")
      #expect(!blank.errors.contains(".."), "\(blank.errors)")

      // The time is printed as measured (ElapsedTimeTests checks the rounding without a wall clock).
      let file = directory.appendingPathComponent("two.csv")
      try Data("user_id,nickname\nu-1,One\nu-2,Two\n".utf8).write(to: file)
      let imported = try await Keel.run(["users", "import", file.path] + target)
      #expect(imported.status == 0, "\(imported.errors)")
      let summary = try #require(imported.lines.last)
      let time = summary.dropFirst("Created 2 of 2 users in ".count).dropLast(" s.".count)
      #expect(summary.hasPrefix("Created 2 of 2 users in ") && summary.hasSuffix(" s."), "\(summary)")
      #expect(Double(time) != nil, "a number of seconds: \(summary)")
    }
  }

  @Test("Commands that send nothing start and announce no Sandbox; their JSON keys are snake_case")
  func localCommandsStayLocal() async throws {
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let local = ["--data-dir", directory.path]

    let tracked = try await Keel.run(["events", "track", "opened"] + local)
    let status = try await Keel.run(["events", "status", "--json"] + local)
    let images = try await Keel.run(["images", "stats"] + local)

    for run in [tracked, status, images] {
      #expect(run.status == 0, "\(run.errors)")
      #expect(!run.errors.contains("Sandbox"), "\(run.errors)")
    }
    #expect(tracked.lines.first?.hasSuffix("1 pending. `keel events flush` delivers it.") == true, "\(tracked.lines)")
    let document = try Keel.json(status)
    #expect(document["pending"] as? Int == 1)
    #expect(document["dead_lettered"] as? Int == 0 && document["is_online"] as? Bool == true, "\(document)")
    #expect(images.lines == ["0 images, 0 bytes on disk."])
  }

  /// Runs the command after its first argument with standard input on a pseudo-terminal (python3's `pty`: a user at
  /// a terminal), types the bytes its first argument spells in hex once the prompt has turned echo off, and prints
  /// the exit status and whether echo is on again.
  private static let promptScript = """
    import os, pty, subprocess, sys, termios, time
    master, slave = pty.openpty()
    child = subprocess.Popen(sys.argv[2:], stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 30
    while time.time() < deadline and termios.tcgetattr(slave)[3] & termios.ECHO and child.poll() is None:
        time.sleep(0.01)
    os.write(master, bytes.fromhex(sys.argv[1]))
    child.communicate(timeout=30)
    print(child.returncode, "echo" if termios.tcgetattr(slave)[3] & termios.ECHO else "silent")
    """

  @Test(
    "At the password prompt Enter signs in, Ctrl-C stops (130), Ctrl-D ends the input (65); echo is restored",
    arguments: [("64656d6f2d70617373776f72640d", "0 echo", 1), ("73656303", "130 echo", 0), ("73656304", "65 echo", 0)])
  func passwordPromptKeys(keys: String, expected: String, sent: Int) async throws {
    let python = URL(fileURLWithPath: "/usr/bin/python3")
    try #require(
      FileManager.default.isExecutableFile(atPath: python.path),
      "python3 is needed to type at a terminal; .ci/run installs it")
    try await Keel.withSandbox { sandbox, directory in
      let run = try await ChildProcess.run(
        python,
        arguments: ["-c", Self.promptScript, keys, Keel.binary.path, "auth", "login", "--email", "demo@keel.dev"]
          + Keel.options(sandbox, directory),
        killAfter: .seconds(60))

      #expect(run.lines == [expected], "\(run.lines) \(run.errors)")
      #expect(try await sandbox.control.statistics().requests("POST /v1/auth/login") == sent)
    }
  }
}
