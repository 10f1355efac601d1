import Foundation
import Logging
import Sandbox
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(Glibc)
  import Glibc
  // `struct stat` is declared by headers Dispatch's C module includes too, and some builds of this target take its
  // copy, whose members MemberImportVisibility refuses unless that module is imported.
  import CDispatch
#endif

/// What another user of the machine, hostile input or an odd output file can do to the CLI and its data
/// directory. Each test failed before the fix it covers.
@Suite("Hardening: secrets, other users, odd files and hostile input", .timeLimit(.minutes(10)))
struct HardeningTests {
  @Test(
    "Every file and directory a command creates in the data directory is owner-only; no API token or password in the clear"
  )
  func ownerOnlyFiles() async throws {
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let data = directory.appendingPathComponent("data")
    let target = ["--data-dir", data.path]
    try "user_id,nickname\nb,Bee\n".write(
      to: directory.appendingPathComponent("one.csv"), atomically: true, encoding: .utf8)
    // One of every kind of command, on the embedded Sandbox (its state, key and lock) and Keel's own stores.
    for arguments in [
      ["users", "create", "a:A", "--api-token", "Secret-41"],
      ["users", "get", "a", "--api-token", "Secret-41"],
      ["auth", "login", "--email", "demo@keel.dev", "--password", "demo-password"],
      ["auth", "whoami"],
      ["events", "track", "checkout", "--property", "token=t0ps3cret"],
      ["events", "flush"],
      ["images", "get", "/images/a.png"],
      ["images", "stats"],
      ["users", "update", "a", "--nickname", "B", "--api-token", "Secret-41"],
      ["users", "search", "B", "--api-token", "Secret-41"],
      ["users", "import", directory.appendingPathComponent("one.csv").path, "--api-token", "Secret-41"],
      ["events", "status"],
      ["auth", "logout"],
    ] {
      let run = try await Keel.run(arguments + target)
      #expect(run.status == 0, "\(arguments): \(run.errors)")
    }

    let wider = try Self.entriesWiderThanOwnerOnly(in: data)
    #expect(wider.isEmpty, "not owner-only: \(wider)")
    // Not in any file the commands wrote: not the API token, not the password.
    let files =
      FileManager.default.enumerator(at: data, includingPropertiesForKeys: [.isRegularFileKey])?
      .compactMap { $0 as? URL }
      .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true } ?? []
    #expect(!files.isEmpty)
    for file in files {
      let bytes = try Data(contentsOf: file)
      for secret in ["Secret-41", "demo-password"] {
        #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) in \(file.lastPathComponent)")
      }
    }
    let state = try String(contentsOf: data.appendingPathComponent("sandbox/sandbox-state.json"), encoding: .utf8)
    #expect(!state.contains("Secret-41"), "the API token is kept as a digest")
    #expect(!state.contains("-4"), "no UUID-shaped token is kept: \(state.prefix(400))")
    if OtherUser.isSomeoneElse {
      for file in ["sandbox/sandbox-state.json", "sandbox/access-key", "events.sqlite", "users.json"] {
        let read = try await OtherUser.run(["/bin/cat", data.appendingPathComponent(file).path])
        #expect(read.status != 0, "another user read \(file)")
      }
    }
  }

  @Test("Another user cannot read or wipe the embedded Sandbox while a command runs; the import completes")
  func embeddedSandboxAnswersOnlyItsOwner() async throws {
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("users.csv")
    // 40 users at one a second: the Sandbox outlives the other user's three calls, each a process of its own that a
    // loaded run has taken seconds to start (with 15, a loaded run's third call got no answer at all, curl's 000:
    // the import, and its Sandbox, were most likely over).
    try (["user_id,nickname"] + (1...40).map { "u\($0),User \($0)" }).joined(separator: "\n")
      .write(to: file, atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("data")

    let importing = try Spawned(Keel.binary, ["users", "import", file.path, "--data-dir", data.path])
    #expect(await importing.waitForErrors(containing: "1/40 done"), "\(importing.errors)")
    let announced = importing.errors.components(separatedBy: "embedded Sandbox at ").dropFirst().first
    let url = try #require(announced?.split(separator: " ").first.map(String.init), "\(importing.errors)")

    // WHEN another user calls its data and control routes, with and without a guessed key
    let reset = try await OtherUser.status("POST", "\(url)/_sandbox/reset")
    let users = try await OtherUser.status("GET", "\(url)/v3/users", headers: ["Api-Token": "sandbox"])
    let guessed = try await OtherUser.status("POST", "\(url)/_sandbox/reset", headers: ["Sandbox-Key": "0"])

    // THEN each is refused, and the import finishes with every user
    #expect([reset, users, guessed] == ["401", "401", "401"])
    #expect(await importing.finish() == 0, "\(importing.errors)")
    let found = try await Keel.run(["users", "search", "User 40", "--json", "--data-dir", data.path])
    #expect((try Keel.json(found)["users"] as? [Any])?.count == 1, "\(found.errors)")
  }

  @Test("--output: a FIFO is written through, a symbolic link is followed and kept, - is standard output")
  func outputTargets() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let target = Keel.options(sandbox, directory)
      let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]

      // Standard output holds the image, and nothing else.
      let toStandardOutput = try Spawned(Keel.binary, ["images", "get", "/images/a.png", "--output", "-"] + target)
      #expect(await toStandardOutput.finish() == 0, "\(toStandardOutput.errors)")
      #expect(Array(toStandardOutput.output.prefix(4)) == png)

      // A link keeps being a link; the file it names gets the image.
      let real = directory.appendingPathComponent("real.png")
      let link = directory.appendingPathComponent("link.png")
      try Data("old".utf8).write(to: real)
      try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
      let linked = try await Keel.run(["images", "get", "/images/b.png", "--output", link.path] + target)
      #expect(linked.status == 0, "\(linked.errors)")
      #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == real.path)
      #expect(Array(try Data(contentsOf: real).prefix(4)) == png)

      // A FIFO is written to, not replaced by a file.
      let fifo = directory.appendingPathComponent("pipe")
      #expect(mkfifo(fifo.path, 0o600) == 0)
      // Read on a thread of its own: opening and reading a FIFO blocks until the child writes and closes it, which
      // must not hold one of the cooperative pool's threads meanwhile. With open(2) and read(2), retried when a signal
      // interrupts them: `FileHandle.readDataToEndOfFile` stops the process on EINTR.
      let received = Task { await onOwnThread { Self.readAll(fifo.path) } }
      let piped = try await Keel.run(["images", "get", "/images/c.png", "--output", fifo.path] + target)
      #expect(piped.status == 0, "\(piped.errors)")
      #expect(Array(await received.value.prefix(4)) == png)
      var status = stat()
      #expect(lstat(fifo.path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "still a FIFO")
    }
  }

  /// Everything written to the file at `path` until its writer closes it (a FIFO), read with system calls that a
  /// signal may interrupt and that are then tried again.
  static func readAll(_ path: String) -> Data {
    var descriptor: Int32
    repeat { descriptor = open(path, O_RDONLY) } while descriptor < 0 && errno == EINTR
    guard descriptor >= 0 else { return Data() }
    defer { close(descriptor) }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return data }
      data.append(contentsOf: buffer[..<count])
    }
  }

  @Test("A scheme-relative image path and an empty --data-dir are refused before anything is sent")
  func pathsThatLeave() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let target = Keel.options(sandbox, directory)
      let elsewhere = try await Keel.run(["images", "get", "//127.0.0.1:1/x.png"] + target)
      #expect(elsewhere.status == 65, "\(elsewhere.errors)")
      #expect(elsewhere.errors.contains("Nothing was sent"))
      let empty = try await Keel.run([
        "users", "get", "a", "--base-url", sandbox.baseURL.absoluteString, "--data-dir", "",
      ])
      #expect(empty.status == 64, "\(empty.errors)")
      #expect(empty.errors.contains("--data-dir is empty"))
    }
  }

  @Test("A user cache that cannot be written (a folder in its place) fails users create with 74, after the result")
  func cacheWriteFailure() async throws {
    try await Keel.withSandbox { sandbox, directory in
      // The write fails as on a full disk: the new file cannot take the cache's place.
      let inTheWay = directory.appendingPathComponent("users.json/kept", isDirectory: true)
      try FileManager.default.createDirectory(at: inTheWay, withIntermediateDirectories: true)
      let run = try await Keel.run([
        "users", "create", "a:A", "--base-url", sandbox.baseURL.absoluteString, "--data-dir", directory.path,
      ])
      #expect(run.status == 74, "\(run.errors)")
      #expect(run.lines.first?.hasPrefix("Created a") == true, "the result is printed: \(run.lines)")
      #expect(run.errors.contains("local user cache could not keep it"), "\(run.errors)")
      #expect(try await sandbox.control.statistics().responses("POST /v3/users", status: 200) == 1)
    }
  }

  @Test("SIGTERM ends the demo with 143 and removes its temporary directory; an abandoned one goes too")
  func demoCleansUp() async throws {
    let temporary = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: temporary) }
    // A folder a killed demo left: its owner is a process that has ended.
    let gone = Process()
    gone.executableURL = URL(fileURLWithPath: "/bin/true")
    try gone.run()
    await ChildProcess.waitForExit(gone)
    let abandoned = temporary.appendingPathComponent("keel-demo-abandoned")
    try FileManager.default.createDirectory(at: abandoned, withIntermediateDirectories: true)
    try Data("\(gone.processIdentifier)\n".utf8).write(to: abandoned.appendingPathComponent("owner"))

    let demo = try Spawned(Keel.binary, ["demo", "--quick"], environment: ["TMPDIR": temporary.path])
    let started = await poll(for: .seconds(30)) {
      String(decoding: demo.output, as: UTF8.self).contains("1. ")
    }
    #expect(started, "\(demo.errors)")
    kill(demo.process.processIdentifier, SIGTERM)
    #expect(await demo.finish() == 143, "\(demo.errors)")
    let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix("keel-") }
    #expect(left.isEmpty, "left behind: \(left)")
  }

  @Test("An endless import stream is refused at 32 MiB with memory bounded; more than 100,000 rows too")
  func importIsBounded() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let target = "--base-url \"$1\" --data-dir \"$2\""
      let measure =
        "import resource,subprocess,sys; r=subprocess.run(sys.argv[1:]); "
        + "print('maxrss-kib', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
        + "sys.exit(r.returncode)"
      let run = try await ChildProcess.run(
        URL(fileURLWithPath: "/bin/sh"),
        arguments: [
          "-c", "yes 'a,b,' | python3 -c \"$3\" \"$0\" users import - \(target)", Keel.binary.path,
          sandbox.baseURL.absoluteString, directory.path, measure,
        ], killAfter: .seconds(90))
      #expect(run.status == 65, "\(run.errors)")
      #expect(run.errors.contains("larger than 32 MiB"), "\(run.errors)")
      let kibibytes = run.errors.components(separatedBy: "maxrss-kib ").dropFirst().first
        .flatMap { Int($0.prefix { $0.isNumber }) }
      let peak = try #require(kibibytes, "\(run.errors)")
      // The documented bound (CLI guide): 32 MiB read, its text, the parsed rows and the runtime, under 400 MiB.
      #expect(peak < 400 * 1_024, "peak resident memory \(peak / 1_024) MiB")

      let many = directory.appendingPathComponent("many.csv")
      try (["user_id,nickname"] + (0...100_000).map { "u\($0),U\($0)" }).joined(separator: "\n")
        .write(to: many, atomically: true, encoding: .utf8)
      let tooMany = try await Keel.run(
        ["users", "import", many.path, "--base-url", sandbox.baseURL.absoluteString, "--data-dir", directory.path])
      #expect(tooMany.status == 65)
      #expect(tooMany.errors.contains("more than 100000 users"), "\(tooMany.errors)")
      #expect(try await sandbox.control.statistics().requests("POST /v3/users") == 0)
    }
  }

  @Test("Control characters: refused in input before sending, escaped in output; an API token with one refused")
  func controlCharacters() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let target = Keel.options(sandbox, directory)
      let evil = "cc1:Evil\u{1B}]0;pwned\u{07}\u{1B}[2J"
      let refused = try await Keel.run(["users", "create", evil] + target)
      #expect(refused.status == 65, "\(refused.errors)")
      #expect(refused.errors.contains("control characters"))
      #expect(!refused.errors.contains("\u{1B}") && !refused.lines.joined().contains("\u{1B}"))
      #expect(try await sandbox.control.statistics().requests("POST /v3/users") == 0)

      // A nickname another client stored is shown escaped.
      var request = URLRequest(url: sandbox.baseURL.appendingPathComponent("v3/users"))
      request.httpMethod = "POST"
      request.setValue("sandbox", forHTTPHeaderField: "Api-Token")
      request.httpBody = try JSONSerialization.data(withJSONObject: [
        "user_id": "cc2", "nickname": "Evil\u{1B}]0;pwned\u{07}\nline", "profile_url": "",
      ])
      _ = try await URLSession.shared.data(for: request)
      let shown = try await Keel.run(["users", "get", "cc2"] + target)
      #expect(shown.status == 0, "\(shown.errors)")
      let text = shown.lines.joined(separator: "\n")
      #expect(!text.contains("\u{1B}") && !text.contains("\u{07}"))
      #expect(text.contains("Evil\\e]0;pwned\\a\\nline"), "\(text)")

      for command in [["events", "track", "x"], ["users", "get", "cc2"]] {
        let badToken = try await Keel.run(command + ["--api-token", "a\u{01}b"] + target)
        #expect(badToken.status == 64, "\(command): \(badToken.errors)")
      }
    }
  }

  @Test("A password in --base-url is masked in the logs")
  func userInfoRedacted() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let url = "http://bob:pw-s3cret@127.0.0.1:\(sandbox.port)"
      let run = try await Keel.run(
        ["users", "get", "nobody", "--base-url", url, "--data-dir", directory.path, "--log-level", "debug"])
      #expect(run.errors.contains("bob:***@127.0.0.1"), "\(run.errors)")
      #expect(!run.errors.contains("pw-s3cret"))
    }
  }

  @Test("sandbox serve: an address that cannot be bound and a busy port are one sentence and a documented code")
  func serveFailures() async throws {
    let badHost = try await Keel.run(["sandbox", "serve", "--host", "256.1.1.1"])
    #expect(badHost.status == 64, "\(badHost.errors)")
    #expect(badHost.errors.contains("--host 256.1.1.1 is not an address"))
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .error))
    defer { Task { await sandbox.stop() } }
    let busy = try await Keel.run(["sandbox", "serve", "--port", "\(sandbox.port)", "--log-level", "critical"])
    #expect(busy.status == 69, "\(busy.errors)")
    #expect(busy.errors.contains("already in use"), "\(busy.errors)")
    #expect(busy.errors.split(separator: "\n").count == 1, "\(busy.errors)")
  }

  /// Every entry below `root` whose mode is wider than 0700 (directories) or 0600 (files).
  static func entriesWiderThanOwnerOnly(in root: URL) throws -> [String] {
    var wider: [String] = []
    let paths = [root.path] + (FileManager.default.subpaths(atPath: root.path) ?? []).map { "\(root.path)/\($0)" }
    for path in paths {
      var status = stat()
      guard lstat(path, &status) == 0 else { continue }
      let mode = status.st_mode & 0o777
      let isDirectory = status.st_mode & S_IFMT == S_IFDIR
      if mode & ~(isDirectory ? 0o700 : 0o600) != 0 {
        wider.append("\(path.dropFirst(root.path.count)) \(String(mode, radix: 8))")
      }
    }
    return wider
  }
}
