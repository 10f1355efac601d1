import Foundation
import Logging

/// How a Sandbox is started: where it listens and which options of the contract (Documentation/SandboxAPI.md) are in
/// force.
///
/// ```swift
/// let sandbox = try await Sandbox.start(SandboxConfiguration(apiTokens: ["T"], accessTokenTTL: .seconds(5)))
/// // … requests to sandbox.baseURL with `Api-Token: T`
/// await sandbox.stop()
/// ```
public struct SandboxConfiguration: Sendable {
  /// The address to bind; loopback by default, so that nothing outside the machine can reach it.
  public var host: String
  /// The port to bind; `0` picks a free ephemeral port (see ``RunningSandbox/baseURL``).
  public var port: Int
  /// The `Api-Token` values accepted on `/v3` and `/v1/events`; empty means any non-empty token (open mode).
  /// Data is partitioned per token either way.
  public var apiTokens: Set<String>
  /// Whether the per-tenant, per-route-kind rate limits of `/v3` apply (`--no-rate-limit` turns them off).
  public var rateLimitsEnabled: Bool
  /// The rate limits per route kind, in requests per second.
  public var rateLimits: RateLimits
  /// The accounts of the auth backend, email to password.
  public var accounts: [String: String]
  /// How long an access token is valid.
  public var accessTokenTTL: Duration
  /// How long a refresh token is valid.
  public var refreshTokenTTL: Duration
  /// Faults in force from the start (`--fail-rate`, `--fail-status`, `--latency-ms`, `--drop-rate`).
  public var faults: [SandboxFault]
  /// The clock token lifetimes and rate-limit windows are measured on, and injected latency waits on. Tests pass a
  /// `TestClock` to expire tokens without sleeping.
  public var clock: any Clock<Duration>
  /// The level the Sandbox logs at.
  public var logLevel: Logger.Level
  /// Where the Sandbox keeps its users and sessions between runs (a `sandbox-state.json` file, owner-only, with
  /// token digests rather than tokens); `nil` keeps everything in memory, gone when it stops. Events, faults and
  /// stats are never kept.
  public var stateDirectory: URL?
  /// A secret every request must carry in the `Sandbox-Key` header; any other is answered 401 before its body is
  /// read, and reads or changes nothing. `nil`, the default, is open mode: any process that can reach the port is
  /// served. The `keel` CLI's embedded Sandbox sets one, kept owner-only in the data directory, so that other users
  /// of the machine cannot read or wipe it.
  public var accessKey: String?
  /// A secret the control plane (`/_sandbox`: faults, reset, stats) requires in `Sandbox-Key`, on top of being
  /// reached from loopback; `nil` falls back to ``accessKey``, and with neither the control plane is open to every
  /// loopback peer. ``RunningSandbox/control`` presents it.
  public var controlKey: String?
  /// How long a connection may go without sending a whole request, its first included, before it is closed; 30 s by
  /// default.
  public var idleTimeout: Duration = .seconds(30)
  /// How often the Socket.IO server (`/socket.io/`) pings each connection; 25 s by default, as Socket.IO's.
  public var socketIOPingInterval: Duration = .seconds(25)
  /// How long it waits for a pong before it drops the connection, and what clients add to the interval before they
  /// call a silent server dead; 20 s by default, as Socket.IO's.
  public var socketIOPingTimeout: Duration = .seconds(20)
  /// The most Socket.IO connections one address (a client's IP) may hold at once; 64 by default. One more is refused
  /// before the upgrade (400, and closed), so that one client cannot hold the server's memory through connections,
  /// each of which may hold a packet of up to 1,000,000 bytes being read.
  public var socketIOConnectionsPerAddress = 64

  /// Whether the chat backend starts with a workspace to try when it has none: "Keel", owned by the first configured
  /// account (by email), every configured account a member, `#general` with all of them, `#random` with the owner
  /// alone, and a DM room between the first two. The `keel` CLI's Sandboxes turn it on with ``tryingAccounts``;
  /// off by default, so that tests start empty.
  public var seedsChat = false

  /// Whether the Sandbox serves its console, a web page at `/_sandbox/console` that shows the requests, sockets and
  /// chat it sees and sets its faults, under the control plane's rules (loopback only, the control key presented
  /// once in the page's URL). `keel sandbox serve` turns it on; off by default, and in the CLI's embedded Sandboxes.
  public var servesConsole = false

  /// The app's client id at Apple and Kakao, which a provider's identity token must name as its audience to sign in
  /// (SandboxAPI §2): `dev.keel.app` by default, as the Sandbox's providers sign unless asked for another.
  public var providerAudience = "dev.keel.app"

  /// Two accounts to try the chat with, `ada@keel.dev` (`ada-password`) and `demo@keel.dev` (`demo-password`): what
  /// the `keel` CLI's Sandboxes sign in with.
  public static let tryingAccounts = ["ada@keel.dev": "ada-password", "demo@keel.dev": "demo-password"]

  /// A new key for ``accessKey`` or ``controlKey``: 32 bytes from the system's random generator, as 64 hex digits.
  public static func randomKey() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<4).map { _ in
      let word = String(generator.next() as UInt64, radix: 16)
      return String(repeating: "0", count: 16 - word.count) + word
    }.joined()
  }

  /// Requests per second per tenant for each kind of `/v3` route, like a free-trial Sendbird application.
  public struct RateLimits: Sendable, Hashable {
    /// `GET` requests per second.
    public var get: Int
    /// `POST` requests per second.
    public var post: Int
    /// `PUT` requests per second.
    public var put: Int
    /// `DELETE` requests per second.
    public var delete: Int
    /// How early a request may arrive at a full window's end and still open the next window, at the end's nominal
    /// instant: the jitter a client spaced at the limit meets on its way here (GCRA's delay-variation tolerance).
    /// Windows stay anchored to their nominal instants, so the allowance never adds up: a client sending faster
    /// than the limit is still refused. 10 ms by default.
    public var tolerance: Duration

    /// The contract's defaults: GET 10/s, POST, PUT and DELETE 5/s, 10 ms of tolerance.
    public init(get: Int = 10, post: Int = 5, put: Int = 5, delete: Int = 5, tolerance: Duration = .milliseconds(10)) {
      self.get = get
      self.post = post
      self.put = put
      self.delete = delete
      self.tolerance = tolerance
    }

    /// Sets the limit of one kind of route from `kind=N` (`get`, `post`, `put` or `delete`; N requests per second,
    /// at least 1), or the ``tolerance`` from `tolerance=MS`: what `keel sandbox serve --rate-limit` takes.
    ///
    /// - Throws: ``SandboxConfigurationError`` naming what is wrong with `setting`.
    public mutating func apply(_ setting: String) throws {
      let parts = setting.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
      if parts.first?.lowercased() == "tolerance" {
        guard parts.count == 2, let milliseconds = Int(parts[1]), (0...1_000).contains(milliseconds) else {
          throw SandboxConfigurationError(
            "A rate-limit tolerance is tolerance=MS, 0 to 1000 milliseconds; got \"\(setting)\".")
        }
        tolerance = .milliseconds(milliseconds)
        return
      }
      guard parts.count == 2, let perSecond = Int(parts[1]), (1...100_000).contains(perSecond) else {
        throw SandboxConfigurationError(
          "A rate limit is KIND=N with N requests per second from 1 to 100000, such as post=1; got \"\(setting)\".")
      }
      switch parts[0].lowercased() {
      case "get": get = perSecond
      case "post": post = perSecond
      case "put": put = perSecond
      case "delete": delete = perSecond
      default:
        throw SandboxConfigurationError(
          "A rate limit's kind is get, post, put or delete; got \"\(parts[0])\" in \"\(setting)\".")
      }
    }
  }

  /// A configuration; every parameter defaults to the contract's default.
  public init(
    host: String = "127.0.0.1",
    port: Int = 0,
    apiTokens: Set<String> = [],
    rateLimitsEnabled: Bool = true,
    rateLimits: RateLimits = RateLimits(),
    accounts: [String: String] = ["demo@keel.dev": "demo-password"],
    accessTokenTTL: Duration = .seconds(60),
    refreshTokenTTL: Duration = .seconds(3_600),
    faults: [SandboxFault] = [],
    clock: any Clock<Duration> = ContinuousClock(),
    logLevel: Logger.Level = .info,
    stateDirectory: URL? = nil,
    accessKey: String? = nil,
    controlKey: String? = nil
  ) {
    self.host = host
    self.port = port
    self.apiTokens = apiTokens
    self.rateLimitsEnabled = rateLimitsEnabled
    self.rateLimits = rateLimits
    self.accounts = accounts
    self.accessTokenTTL = accessTokenTTL
    self.refreshTokenTTL = refreshTokenTTL
    self.faults = faults
    self.clock = clock
    self.logLevel = logLevel
    self.stateDirectory = stateDirectory
    self.accessKey = accessKey
    self.controlKey = controlKey
  }
}

/// A setting of ``SandboxConfiguration`` that cannot be used, with a sentence saying why.
public struct SandboxConfigurationError: Error, CustomStringConvertible, Sendable {
  /// What is wrong, in a sentence.
  public let description: String

  init(_ description: String) { self.description = description }
}
