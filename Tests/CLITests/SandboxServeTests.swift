import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `keel sandbox serve`, run as a real process: it prints its URL, serves the contract, and stops on SIGINT.
@Suite("keel sandbox serve", .timeLimit(.minutes(3)))
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

    let line = try #require(ChildProcess.readLine(output.fileHandleForReading))
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
    let baseURL = try #require(ChildProcess.readLine(output.fileHandleForReading).flatMap(URL.init(string:)))
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
