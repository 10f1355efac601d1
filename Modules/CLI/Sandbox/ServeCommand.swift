import ArgumentParser
import Foundation
import KeelConcurrency
import Logging
import Sandbox
import UnixSignals

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `keel sandbox serve`: serves the whole contract until SIGINT or SIGTERM, printing the base URL once ready.
struct ServeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Serve the Sandbox on 127.0.0.1 until interrupted.",
    discussion:
      "Prints the base URL on one line when ready (logs go to standard error) and stops cleanly on SIGINT or SIGTERM."
  )

  @Option(help: "The port to listen on; 0 picks a free one.")
  var port = 8080

  @Option(help: "The address to bind.")
  var host = "127.0.0.1"

  @Option(name: .customLong("api-token"), help: "An accepted Api-Token (repeatable); none means any token.")
  var apiTokens: [String] = []

  @Option(
    name: .customLong("account"),
    help:
      "An auth-backend account as email:password (repeatable); default ada@keel.dev:ada-password and demo@keel.dev:demo-password."
  )
  var accounts: [String] = []

  @Option(help: "Access-token lifetime in seconds.")
  var accessTokenTtl: Double = 60

  @Option(help: "Refresh-token lifetime in seconds.")
  var refreshTokenTtl: Double = 3_600

  @Flag(help: "Turn off the /v3 rate limits.")
  var noRateLimit = false

  @Option(
    name: .customLong("rate-limit"),
    help:
      "A /v3 limit per tenant as KIND=N requests per second, KIND get, post, put or delete (repeatable), e.g. post=1."
  )
  var rateLimits: [String] = []

  @Option(help: "Share of requests (0-1) answered with --fail-status.")
  var failRate: Double?

  @Option(help: "The status for --fail-rate.")
  var failStatus = 503

  @Option(help: "Latency added to every request, in milliseconds.")
  var latencyMs: Int?

  @Option(help: "Share of connections (0-1) dropped without a response.")
  var dropRate: Double?

  @Option(help: "Seed for the fault decisions, so that a run can be repeated.")
  var seed: UInt64?

  @Option(help: "trace, debug, info, notice, warning, error or critical.")
  var logLevel = "info"

  @Option(
    help: ArgumentHelp(
      "A secret the control plane (/_sandbox: faults, reset, stats) requires in the Sandbox-Key header.",
      discussion: "Also KEEL_SANDBOX_CONTROL_KEY. Without it, any process on this machine may use the control plane."))
  var controlKey: String?

  func validate() throws {
    guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535, got \(port)") }
    guard Self.isAddress(host) else {
      throw ValidationError(
        "--host \(host) is not an address this machine can bind, such as 127.0.0.1, ::1 or localhost.")
    }
    if let key = resolvedControlKey,
      key.isEmpty || key.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
    {
      throw ValidationError("--control-key must be non-empty, without spaces or control characters.")
    }
    var limits = SandboxConfiguration.RateLimits()
    for setting in rateLimits {
      do { try limits.apply(setting) } catch { throw ValidationError("--rate-limit: \(error)") }
    }
    guard Logger.Level(rawValue: logLevel) != nil else {
      throw ValidationError("--log-level \(logLevel) is not a level")
    }
    for account in accounts {
      let parts = account.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
      guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
        throw ValidationError("--account must be email:password, both non-empty, got '\(account)'")
      }
    }
    for (name, rate) in [("--fail-rate", failRate), ("--drop-rate", dropRate)] {
      if let rate, !(0...1).contains(rate) { throw ValidationError("\(name) must be 0 to 1, got \(rate)") }
    }
    guard (200...599).contains(failStatus) else { throw ValidationError("--fail-status must be 200 to 599") }
    for (name, seconds) in [("--access-token-ttl", accessTokenTtl), ("--refresh-token-ttl", refreshTokenTtl)] {
      guard seconds.isFinite, (0.001...31_536_000).contains(seconds) else {
        throw ValidationError("\(name) must be 0.001 to 31536000 seconds, got \(seconds)")
      }
    }
    if let latencyMs, !(0...60_000).contains(latencyMs) {
      throw ValidationError("--latency-ms must be 0 to 60000, got \(latencyMs)")
    }
  }

  func run() async throws {
    LoggingSystem.bootstrap(PrintableLogHandler.standardError)
    let sandbox: RunningSandbox
    do {
      sandbox = try await Sandbox.start(configuration)
    } catch {
      let failure = CommandFailure(
        .network,
        "Cannot serve on \(host):\(port): \(Self.reason(error)). Pick another --port (0 for any free one) or --host.")
      Output(json: false).fail(failure)
      throw ExitCode(failure.status.rawValue)
    }
    // Written straight to the file descriptor, so that a script reading the pipe gets it at once.
    FileHandle.standardOutput.write(Data((sandbox.baseURL.absoluteString + "\n").utf8))
    // The console's address for a person, with the key a browser presents once when standard error is a terminal;
    // written elsewhere (a log file, a CI log), the key is left out.
    let key = isatty(STDERR_FILENO) == 1 ? resolvedControlKey : nil
    var console = Self.consoleURL(of: sandbox.baseURL, key: key)
    if key == nil, resolvedControlKey != nil { console += "?key= and the control key (shown only to a terminal)" }
    FileHandle.standardError.write(Data("Console: \(console)\n".utf8))
    for await _ in await UnixSignalsSequence(trapping: .sigint, .sigterm) { break }
    // Requests in flight get 5 s to finish. A connection whose handler waits on something that never comes (a
    // request the parser has not finished) would hold stop() past that, so the process ends regardless, a moment
    // after the 5 s.
    let (stopped, done) = AsyncStream<Void>.makeStream()
    Task {
      await sandbox.stop()
      done.yield()
    }
    if await firstElement(of: stopped, within: .milliseconds(5_500), where: { true }) == nil {
      Logger(label: "keel.sandbox").warning("Stopped with connections still open after 5 s.")
    }
  }

  /// The console's page on the Sandbox at `baseURL`, with `key` in its query when the control plane has one.
  static func consoleURL(of baseURL: URL, key: String?) -> String {
    let page = baseURL.appendingPathComponent("_sandbox/console").absoluteString
    guard let key else { return page }
    var allowed = CharacterSet.urlQueryAllowed
    allowed.remove(charactersIn: "&=+#")
    return page + "?key=" + (key.addingPercentEncoding(withAllowedCharacters: allowed) ?? key)
  }

  /// The control key from `--control-key` or `KEEL_SANDBOX_CONTROL_KEY`.
  private var resolvedControlKey: String? {
    controlKey ?? ProcessInfo.processInfo.environment["KEEL_SANDBOX_CONTROL_KEY"]
  }

  /// Whether `host` is an IPv4 or IPv6 literal, or a name this machine resolves.
  private static func isAddress(_ host: String) -> Bool {
    var v4 = in_addr()
    var v6 = in6_addr()
    if inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1 { return true }
    guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.".contains($0)) }),
      host.contains(where: \.isLetter)
    else { return false }
    var result: UnsafeMutablePointer<addrinfo>?
    defer { if let result { freeaddrinfo(result) } }
    return getaddrinfo(host, nil, nil, &result) == 0
  }

  /// Why the server could not start, in words: `the address is already in use`.
  private static func reason(_ error: any Error) -> String {
    let text = "\(error)"
    if text.contains("errno: 98") || text.contains("Address already in use") { return "the address is already in use" }
    if text.contains("errno: 99") || text.contains("Cannot assign requested address") {
      return "this machine has no such address"
    }
    if text.contains("errno: 13") || text.contains("Permission denied") {
      return "permission denied (ports below 1024 need privileges)"
    }
    return "the server could not start"
  }

  private var configuration: SandboxConfiguration {
    var configuration = SandboxConfiguration(
      host: host, port: port, apiTokens: Set(apiTokens), rateLimitsEnabled: !noRateLimit,
      accessTokenTTL: .milliseconds(Int(accessTokenTtl * 1_000)),
      refreshTokenTTL: .milliseconds(Int(refreshTokenTtl * 1_000)),
      logLevel: Logger.Level(rawValue: logLevel) ?? .info, controlKey: resolvedControlKey)
    // The accounts to try the chat with, and a workspace for them, unless --account says whom to serve.
    configuration.accounts = SandboxConfiguration.tryingAccounts
    configuration.seedsChat = true
    configuration.servesConsole = true
    // Checked in `validate()`.
    for setting in rateLimits { try? configuration.rateLimits.apply(setting) }
    if !accounts.isEmpty {
      configuration.accounts = Dictionary(
        accounts.map { account in
          let parts = account.split(separator: ":", maxSplits: 1)
          return (String(parts[0]), String(parts[1]))
        }
      ) { $1 }
    }
    if failRate != nil || latencyMs != nil || dropRate != nil {
      configuration.faults = [
        SandboxFault(
          route: "*", status: failRate == nil ? nil : failStatus, rate: failRate ?? 1,
          latency: .milliseconds(latencyMs ?? 0), dropConnectionRate: dropRate ?? 0, seed: seed)
      ]
    }
    return configuration
  }
}
