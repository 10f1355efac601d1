import Foundation
import KeelConcurrency
import LoopbackSockets
import TestSupport
import Testing

@testable import KeelCLI

#if canImport(Glibc)
  import Glibc
#endif

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `keel sandbox serve`, run as a real process: it prints its URL, serves the contract, and stops on SIGINT.
@Suite("keel sandbox serve", .timeLimit(.minutes(10)))
struct SandboxServeTests {
  /// The `keel` binary, built beside the test bundle.
  static var keel: URL {
    ChildProcess.builtExecutable("keel")
  }

  @Test("Prints the base URL on one line, serves requests, and exits 0 on SIGINT")
  func serve() async throws {
    let process = Process()
    process.executableURL = Self.keel
    process.arguments = ["sandbox", "serve", "--port", "0", "--api-token", "T", "--log-level", "warning"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    defer { if process.isRunning { process.terminate() } }

    let line = try #require(await ChildProcess.nextLine(output.fileHandleForReading))
    let baseURL = try #require(URL(string: line))
    #expect(line.hasPrefix("http://127.0.0.1:"))

    var request = URLRequest(url: baseURL.appendingPathComponent("v3/users"))
    request.setValue("T", forHTTPHeaderField: "Api-Token")
    let (_, response) = try await URLSession(configuration: .ephemeral).data(for: request)
    #expect((response as? HTTPURLResponse)?.statusCode == 200)

    process.interrupt()
    let exited = await eventually(maxYields: 5_000_000) { !process.isRunning }
    #expect(exited)
    #expect(process.terminationStatus == 0)
  }

  @Test("Prints the console's address on standard error, its key only to a terminal; the address with the key opens it")
  func consoleAddress() async throws {
    let key = "k&y#1+2=3"
    let process = Process()
    process.executableURL = Self.keel
    process.arguments = ["sandbox", "serve", "--port", "0", "--control-key", key, "--log-level", "warning"]
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    defer { if process.isRunning { process.terminate() } }

    let baseURL = try #require(await ChildProcess.nextLine(output.fileHandleForReading))
    let line = try #require(await ChildProcess.nextLine(errors.fileHandleForReading))
    // A pipe is no terminal: the key is left out.
    #expect(line == "Console: \(baseURL)/_sandbox/console?key= and the control key (shown only to a terminal)")
    #expect(!line.contains("k&y") && !line.contains("k%26y"))
    #expect(ServeCommand.consoleURL(of: URL(string: baseURL)!, key: key).hasSuffix("?key=k%26y%231%2B2%3D3"))
    let console = try #require(URL(string: "\(baseURL)/_sandbox/console?key=k%26y%231%2B2%3D3"))
    // The key in the address, traded for the cookie, and the page after the redirect.
    let (page, response) = try await URLSession(configuration: .ephemeral).data(from: console)
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
    #expect(String(decoding: page, as: UTF8.self).contains("Sandbox console"))
    let bare = try #require(URL(string: "\(baseURL)/_sandbox/console"))
    let (_, refused) = try await URLSession(configuration: .ephemeral).data(from: bare)
    #expect((refused as? HTTPURLResponse)?.statusCode == 401, "no key, no console")
    process.interrupt()
    #expect(await eventually(maxYields: 5_000_000) { !process.isRunning })
  }

  @Test("SIGTERM stops it within its 5 s even while a client holds a connection that never finished a request")
  func sigtermWithAStalledConnection() async throws {
    let process = Process()
    process.executableURL = Self.keel
    process.arguments = ["sandbox", "serve", "--port", "0", "--log-level", "critical"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    defer { if process.isRunning { process.terminate() } }
    let baseURL = try #require(await ChildProcess.nextLine(output.fileHandleForReading).flatMap(URL.init(string:)))
    let port = try #require(baseURL.port)

    // A request head that never ends: nothing answers or closes it.
    guard case .success(let stalled) = LoopbackSocket.open(port: port) else {
      Issue.record("cannot connect to \(baseURL)")
      return
    }
    defer { close(stalled) }
    _ = "GET /v3/users HTTP/1.1\r\nHost: 127".withCString { send(stalled, $0, strlen($0), 0) }

    let sent = ContinuousClock.now
    process.terminate()
    let (ended, end) = AsyncStream<Void>.makeStream()
    process.terminationHandler = { _ in end.yield() }
    if !process.isRunning { end.yield() }
    let exited = await firstElement(of: ended, within: .seconds(60)) { true } != nil
    #expect(exited, "still running 60 s after SIGTERM")
    // 5 s of grace, then the process ends; the stalled connection alone would hold it for good. The bound tells the
    // two apart, not how fast: with every suite running at once, seeing the exit has taken 20 s.
    #expect(sent.duration(to: .now) < .seconds(60), "stopped in \(sent.duration(to: .now))")
  }

  @Test("--fail-rate and --fail-status inject a fault from the start")
  func startupFaults() async throws {
    let process = Process()
    process.executableURL = Self.keel
    process.arguments = [
      "sandbox", "serve", "--port", "0", "--fail-rate", "1", "--fail-status", "503", "--log-level", "error",
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    defer { process.terminate() }
    let baseURL = try #require(await ChildProcess.nextLine(output.fileHandleForReading).flatMap(URL.init(string:)))
    let (_, response) = try await URLSession(configuration: .ephemeral).data(
      from: baseURL.appendingPathComponent("v1/me"))
    #expect((response as? HTTPURLResponse)?.statusCode == 503)
  }

  @Test(
    "Rejects bad options with a message and exit status 64, before binding anything",
    arguments: [
      (["--account", "no-colon"], "--account must be email:password"),
      (["--account", "demo@keel.dev:"], "--account must be email:password"),
      (["--access-token-ttl", "inf"], "--access-token-ttl must be"),
      (["--refresh-token-ttl", "1e16"], "--refresh-token-ttl must be"),
      (["--fail-status", "101"], "--fail-status must be 200 to 599"),
      (["--latency-ms=-5"], "--latency-ms must be 0 to 60000"),
    ])
  func badOptions(arguments: [String], message: String) async throws {
    // Waited for off the test's threads: a blocking wait here would hold one of the few cooperative threads.
    let run = try await ChildProcess.run(
      Self.keel, arguments: ["sandbox", "serve"] + arguments, killAfter: .seconds(30))
    #expect(!run.killed && run.status == 64, "a validation error, not a crash or a server")
    #expect(run.errors.contains(message))
  }
}
