import Foundation
import Logging
import Sandbox
import TestSupport
import Testing

/// The `keel socketio` contract, case by case, against python-socketio: the black box the realtime client is
/// checked through from outside.
@Suite("keel socketio", .timeLimit(.minutes(10)))
struct SocketIOCommandTests {
  /// `keel socketio ARGUMENTS` with `input` on standard input, `during` run while it goes; its lines, standard error
  /// and exit status. Without a `--timeout` of the test's own, the first connection may take a minute, not the
  /// default 10 s: under the whole suite a debug keel has taken longer than 10 s to connect.
  static func run(
    _ arguments: [String], input: String = "", during: @Sendable (Spawned) async throws -> Void = { _ in }
  ) async throws -> (lines: [String], errors: String, status: Int32) {
    let stdin = Pipe()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let timeout = arguments.contains { $0.hasPrefix("--timeout") } ? [] : ["--timeout", "60"]
    let keel = try Spawned(
      ChildProcess.builtExecutable("keel"), ["socketio"] + arguments + timeout, input: stdin.fileHandleForReading)
    try await during(keel)
    let status = await keel.finish(within: .seconds(150))
    let lines = String(decoding: keel.output, as: UTF8.self).split(separator: "\n").map(String.init)
    return (lines, keel.errors, status)
  }

  /// The JSON object on `line`.
  static func object(_ line: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
  }

  /// Waits until `keel` has printed a line containing `text`.
  static func printed(_ keel: Spawned, _ text: String) async -> Bool {
    await poll(for: .seconds(40)) {
      String(decoding: keel.output, as: UTF8.self).contains(text) || !keel.process.isRunning
    }
  }

  @Test("Connect, an acked emit with binary, the echoed event, and a clean disconnect at the end of input: exit 0")
  func acknowledged() async throws {
    let server = try await PythonSocketIOServer()
    let (lines, errors, status) = try await Self.run(
      [server.url.absoluteString, "--namespace", "/chat"],
      input: #"{"emit":"echo","args":[1,"two",{"_binary":"AAEC"}],"ack":true}"# + "\n")
    #expect(status == 0, "\(errors)")
    #expect(lines.allSatisfy { Self.object($0) != nil }, "\(lines)")
    let connect = try #require(lines.first.flatMap(Self.object))
    #expect(connect["type"] as? String == "connect")
    #expect(connect["namespace"] as? String == "/chat")
    #expect((connect["sid"] as? String)?.isEmpty == false)
    #expect(lines.first?.hasPrefix(#"{"type":"connect","namespace":"/chat","sid":"#) == true)
    #expect(lines.contains(#"{"type":"ack","id":1,"args":[1,"two",{"_binary":"AAEC"}]}"#))
    #expect(
      lines.contains(#"{"type":"event","namespace":"/chat","event":"echo","args":[[1,"two",{"_binary":"AAEC"}]]}"#))
    #expect(lines.last == #"{"type":"disconnect","reason":"io client disconnect"}"#)
    await server.stop()
  }

  @Test("Refused by the server's middleware: the connect_error line, exit 77, no retry")
  func refused() async throws {
    let server = try await PythonSocketIOServer()
    let (lines, _, status) = try await Self.run([
      server.url.absoluteString, "--namespace", "/private", "--auth", #"{"token":"wrong"}"#,
    ])
    #expect(status == 77)
    #expect(lines == [#"{"type":"connect_error","namespace":"/private","message":"Not authorized"}"#])
    await server.stop()
  }

  @Test("No server: reconnecting lines until --timeout, then exit 69")
  func unreachable() async throws {
    // A port held so that it refuses: the port of a server stopped here was, under the whole suite, taken by another
    // test's Sandbox within the twenty seconds, and its refusal of the missing token ended the run with 77.
    let port = try RefusingPort()
    defer { withExtendedLifetime(port) {} }
    // Twenty and a half seconds, not one and a half: under the whole suite the first refused attempt has come after
    // 1.5 s, and then there was no line to check. A fraction, so that the message's tenths are checked too.
    let (lines, errors, status) = try await Self.run(
      ["http://127.0.0.1:\(port.number)", "--timeout", "20.5"], input: #"{"emit":"x"}"# + "\n")
    #expect(status == 69)
    #expect(!lines.isEmpty)
    #expect(lines.allSatisfy { Self.object($0)?["type"] as? String == "reconnecting" }, "\(lines)")
    #expect(lines.first?.hasPrefix(#"{"type":"reconnecting","attempt":1,"delay":"#) == true)
    #expect(errors.contains("No connection within 20.5 s"))
  }

  @Test("--timeout and --duration that are not a number of seconds (nan, inf, 0, -1) are usage errors: exit 64")
  func badNumbers() async throws {
    for (option, value) in [
      ("--timeout", "nan"), ("--timeout", "inf"), ("--timeout", "0"), ("--duration", "nan"), ("--duration", "-1"),
    ] {
      let (_, errors, status) = try await Self.run(["http://127.0.0.1:1", "\(option)=\(value)"])
      #expect(status == 64, "\(option) \(value): \(errors.prefix(300))")
      #expect(errors.contains("\(option) is a number of seconds"), "\(option) \(value): \(errors.prefix(300))")
    }
  }

  @Test("A line of standard input that is not a command: exit 65, its number on standard error")
  func badInput() async throws {
    let server = try await PythonSocketIOServer()
    for bad in [
      "not json", "[1]", #"{"emit":1}"#, #"{"emit":"x","args":{}}"#, #"{"emit":"x","args":[{"_binary":"%%"}]}"#,
    ] {
      let (_, errors, status) = try await Self.run(
        [server.url.absoluteString], input: #"{"emit":"echo","args":[1]}"# + "\n" + bad + "\n")
      #expect(status == 65, "\(bad)")
      #expect(errors.contains("Line 2"), "\(bad): \(errors)")
    }
    await server.stop()
  }

  @Test("The server disconnects: exit 0 long before --duration 120 runs out (within 60 s)")
  func serverDisconnect() async throws {
    let server = try await PythonSocketIOServer()
    let started = ContinuousClock.now
    let (lines, _, status) = try await Self.run(
      [server.url.absoluteString, "--duration", "120"], input: #"{"emit":"disconnect_me"}"# + "\n")
    #expect(status == 0)
    #expect(ContinuousClock.now - started < .seconds(60))
    #expect(lines.last == #"{"type":"disconnect","reason":"io server disconnect"}"#)
    await server.stop()
  }

  @Test(#"{"disconnect":true} disconnects and exits 0"#)
  func disconnectCommand() async throws {
    let server = try await PythonSocketIOServer()
    let (lines, _, status) = try await Self.run(
      [server.url.absoluteString, "--duration", "120"],
      input: #"{"emit":"echo","args":["a"],"ack":true}"# + "\n" + #"{"disconnect":true}"# + "\n")
    #expect(status == 0)
    #expect(lines.last == #"{"type":"disconnect","reason":"io client disconnect"}"#)
    await server.stop()
  }

  @Test("A silent server: the ping timeout line, reconnecting, and connected again once it answers")
  func pingTimeout() async throws {
    // The server waits 10 s for a pong, so that a loaded machine's late pong does not make it drop the client first
    // (seen in CI); the client gives up 12 s after the last ping. Ninety seconds in all, and 30 s for each
    // connection: after the ping timeout, the second connection must still come before the end under a loaded pool.
    let server = try await PythonSocketIOServer(pingInterval: 2, pingTimeout: 10)
    let (lines, errors, status) = try await Self.run(
      [server.url.absoluteString, "--duration", "90", "--timeout", "30"]
    ) { keel in
      #expect(await Self.printed(keel, #""type":"connect""#))
      server.pause()
      #expect(await Self.printed(keel, #""reason":"ping timeout""#))
      #expect(await Self.printed(keel, #""type":"reconnecting""#))
      server.resume()
    }
    #expect(status == 0, "\(errors)")
    let types = lines.compactMap { Self.object($0)?["type"] as? String }
    #expect(types.first == "connect")
    #expect(lines.contains(#"{"type":"disconnect","reason":"ping timeout"}"#))
    #expect(types.filter { $0 == "connect" }.count >= 2, "\(lines)")
    #expect(lines.last == #"{"type":"disconnect","reason":"io client disconnect"}"#)
    await server.stop()
  }

  @Test(
    "Standard output that nobody reads holds the connection back: a 300 MB flood costs keel a bounded amount of memory")
  func unreadOutputIsBounded() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .error))
    let login = try await ChatCommandTests.call(
      sandbox, "POST", "/v1/auth/login", json: ["email": "demo@keel.dev", "password": "demo-password"])
    let token = try #require(login["accessToken"] as? String)
    let (input, output) = (Pipe(), Pipe())  // standard input stays open; standard output is never read
    let keel = Process()
    keel.executableURL = ChildProcess.builtExecutable("keel")
    // A connect timeout of 2 minutes, not the default 10 s: with the whole suite running, a debug keel once took longer
    // than 10 s to connect and exited 69 before the flood began.
    keel.arguments = [
      "socketio", sandbox.baseURL.absoluteString, "--auth", #"{"token":"\#(token)"}"#, "--timeout", "120",
    ]
    keel.standardInput = input
    keel.standardOutput = output
    keel.standardError = FileHandle.nullDevice
    try keel.run()
    // Killed rather than waited for here: Foundation reaps it on a thread of its own, and a wait would hold a task's.
    // Only while it runs: once reaped, its number may already be another process's (pids wrap at 32,768 here, and
    // the suite's threads use them up too), such as a python-socketio server another test has paused.
    defer { if keel.isRunning { kill(keel.processIdentifier, SIGKILL) } }
    var joined = false
    for _ in 0..<300 where !joined {
      joined = (try? await sandbox.control.pushSocketIOEvent("hello")) ?? 0 > 0
      if !joined { try await Task.sleep(for: .milliseconds(200)) }
    }
    #expect(joined, "keel socketio joined")

    let piece = String(repeating: "x", count: 500_000)
    for _ in 0..<600 { try await sandbox.control.pushSocketIOEvent("flood", args: [piece]) }
    // Within 10 s of the flood, an unbounded reader would have taken it all; this one stops at its bounds.
    // ThreadSanitizer's shadow memory doubles what a process holds: 81 MiB here was 151 MiB under it (and 342 MiB
    // here without the bound).
    let bound = (ProcessInfo.processInfo.environment["KEEL_TSAN"] == nil ? 150 : 300) * 1_024
    var peak = 0
    _ = await poll(every: .milliseconds(200), for: .seconds(10)) {
      peak = Self.peakResidentKiB(of: keel.processIdentifier)
      return peak > bound
    }
    #expect(peak > 0 && peak < bound, "peak resident memory \(peak / 1_024) MiB")
    await sandbox.stop()
  }

  /// The peak resident memory of process `pid` in KiB (`VmHWM`), 0 when it cannot be read.
  static func peakResidentKiB(of pid: Int32) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
    return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") } ?? 0
  }
}
