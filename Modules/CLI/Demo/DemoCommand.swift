import ArgumentParser
import Domain
import Foundation
import Logging
import NIOTransports
import Networking
import Sandbox
import UnixSignals

/// `keel demo`: Keel end to end on an embedded Sandbox, each step printed with its outcome.
struct DemoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo",
    abstract: "Walk through Keel end to end on an embedded Sandbox; exits 1 if any step's outcome is wrong.",
    discussion: """
      Creates users under the one-request-per-second limit, shows a batch of 11 refused before anything is sent, \
      searches by nickname, signs in and shows one token refresh serving concurrent calls, tracks events while the \
      server fails 30% of uploads and shows every one delivered once, loads an image from the network, then \
      memory, then disk, and has two users chat while one's socket is dropped: every message arrives once, in \
      order. Its files go in a temporary directory, removed at the end.
      """
  )

  @Flag(help: "Fewer users and events: the same steps in about half the time.")
  var quick = false

  @Option(help: "A running Sandbox (keel sandbox serve) to use instead of an embedded one.")
  var baseURL: String?

  @Option(help: "trace, debug, info, notice, warning, error or critical (logs go to standard error).")
  var logLevel = "error"

  @Flag(help: "Print the steps' outcomes as JSON on standard output.")
  var json = false

  func validate() throws {
    try GlobalOptions.validate(logLevel: logLevel)
    if let baseURL, URL(string: baseURL)?.host == nil {
      throw ValidationError("--base-url \(baseURL) is not a URL such as http://127.0.0.1:8080.")
    }
  }

  func run() async throws {
    LoggingBootstrap.once()
    let output = Output(json: json)
    // Trapped before the temporary directory exists, so that no signal can leave it behind.
    let stopping = await UnixSignalsSequence(trapping: .sigterm, .sighup)
    DemoDirectory.removeAbandoned()
    // The embedded Sandbox serves only this process (it holds the key), so no other user can disturb the demo.
    let key = SandboxConfiguration.randomKey()
    let sandbox =
      baseURL == nil ? try await Sandbox.start(SandboxConfiguration(logLevel: .error, accessKey: key)) : nil
    let url = sandbox?.baseURL ?? URL(string: baseURL ?? "")!
    let directory = try DemoDirectory.make()
    defer { DemoDirectory.remove(directory) }
    output.line("Keel demo on \(sandbox == nil ? "the Sandbox" : "an embedded Sandbox") at \(url.absoluteString)\n")

    // Two users' worth of services: the second, with its own files, is the other side of the chat step.
    let services = { (folder: URL) -> Dependencies in
      var configuration = Self.configuration(url, directory: folder, level: logLevel)
      if sandbox != nil {
        configuration.transport = SandboxKeyTransport(base: CommandTransport.http, origin: url, key: key)
        configuration.webSocketTransport = SandboxKeyWebSocketTransport(
          base: CommandTransport.webSocket, origin: url, key: key)
      } else {
        configuration.transport = CommandTransport.http
        configuration.webSocketTransport = CommandTransport.webSocket
      }
      return Dependencies.live(configuration: configuration)
    }
    let demo = Demo(
      dependencies: services(directory), peer: services(directory.appendingPathComponent("peer", isDirectory: true)),
      directory: directory,
      control: sandbox?.control ?? SandboxControl(baseURL: url), output: output, size: quick ? .quick : .full)
    // SIGTERM or SIGHUP (a closed terminal, a CI timeout) ends the demo at once, its temporary directory removed.
    // Nothing in flight is cancelled first: the process's end closes every connection anyway.
    let running = Task { await demo.run() }
    let watching = Task {
      for await signal in stopping {
        // The services keep writing until the process ends, and a write can make the folder again after it went:
        // removed once more after each of ten short waits.
        DemoDirectory.remove(directory)
        for _ in 0..<10 {
          try? await Task.sleep(for: .milliseconds(20))
          DemoDirectory.remove(directory)
        }
        output.note("keel: stopped by \(signal == .sigterm ? "SIGTERM" : "SIGHUP").")
        _exit(128 + (signal == .sigterm ? SIGTERM : SIGHUP))
      }
    }
    let outcomes = await running.value
    watching.cancel()
    // A step that failed half-way may leave the chat's socket and outbox running: stopped before the server is.
    await demo.dependencies.shutDown()
    await demo.peer.shutDown()
    // The pool's idle connections first: the server's graceful shutdown would wait for them (see Target.stop()).
    try? await CommandTransport.http.shutdown()
    await sandbox?.stop()

    let failed = outcomes.filter { !$0.passed }
    let seconds = outcomes.reduce(0) { $0 + $1.seconds }
    try output.result(
      DemoReport(passed: failed.isEmpty, steps: outcomes),
      human: failed.isEmpty
        ? "\nAll \(outcomes.count) steps passed in \(String(format: "%.1f", seconds)) s."
        : "\n\(failed.count) of \(outcomes.count) steps failed.")
    if outcomes.last?.detail == "stopped by Ctrl-C" { throw ExitCode(ExitStatus.interrupted.rawValue) }
    if !failed.isEmpty { throw ExitCode(ExitStatus.failure.rawValue) }
  }

  private static func configuration(_ url: URL, directory: URL, level: String) -> KeelConfiguration {
    // Short retry delays, so that the uploads the Sandbox fails are retried within the demo's minute.
    let events = EventTrackerConfiguration(
      maxBatchCount: 10, flushCount: 1_000, baseRetryDelay: .milliseconds(50), maxRetryDelay: .milliseconds(400),
      uploadTimeout: .seconds(5))
    return KeelConfiguration(
      sendbirdBaseURL: url, backendBaseURL: url, dataDirectory: directory, eventsAPIToken: Target.sandboxAPIToken,
      events: events, logLevel: Logger.Level(rawValue: level) ?? .error)
  }
}

/// What `keel demo --json` prints.
struct DemoReport: Encodable {
  let passed: Bool
  let steps: [Demo.Outcome]
}
