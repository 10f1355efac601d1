import Domain
import Foundation
import KeelRandom
import Logging
import NIOTransports
import Networking
import Sandbox

/// The server a command talks to: the one `--base-url` names, the Sendbird cloud for `--app-id` alone, or else a
/// Sandbox started for this command, which keeps its users and sessions in the data directory for the next one.
enum Target {
  /// A server at a URL: a Sandbox (`keel sandbox serve`) or a backend with the same API.
  case server(URL)
  /// The Sendbird cloud, for the application `--app-id` names; it has no sign-in, events or images API.
  case sendbirdCloud
  /// A Sandbox on 127.0.0.1, running while the command does; its users and sessions stay in the data directory,
  /// and it serves only requests that carry `key` (``SandboxKey``).
  case embedded(RunningSandbox, key: String)
  /// The embedded Sandbox another `keel chat` command on the same data directory runs (``SandboxHost``).
  case guest(URL, key: String)
  /// The embedded Sandbox's address, for a command that never talks to a server (`events status`, `images stats`):
  /// nothing is started and nothing announced; the URL only names where its data belongs.
  case unstarted(URL)

  /// The application id used with a Sandbox when none is given.
  static let sandboxApplicationID = "keel-sandbox"
  /// The API token used with a Sandbox when none is given (a Sandbox takes any).
  static let sandboxAPIToken = "sandbox"

  /// How a command shares the embedded Sandbox with the other `keel chat` commands on its data directory.
  enum Sharing {
    /// It does not: it holds the data directory alone.
    case none
    /// For its moment: it hosts the Sandbox unless one that stays serves it.
    case briefly
    /// Until stopped (`keel chat tail`): guests may use the Sandbox it hosts.
    case staying
  }

  /// The target `options` choose; an embedded Sandbox is started (or, with `sharing`, the one another chat command
  /// runs is used), and said so on standard error, unless the command sends nothing (`sends` is `false`).
  static func resolve(
    _ options: GlobalOptions, output: Output, sends: Bool = true, sharing: Sharing = .none
  ) async throws -> Target {
    if let baseURL = options.resolvedBaseURL, let url = URL(string: baseURL) { return .server(url) }
    if options.resolvedAppID != nil { return .sendbirdCloud }
    guard sends else { return .unstarted(URL(string: "http://127.0.0.1:\(stablePort(for: options.dataDirectory))")!) }
    let directory = options.dataDirectory.appendingPathComponent("sandbox", isDirectory: true)
    let key = try SandboxKey.load(in: directory)
    var hold: SandboxHost.Hold?
    if sharing != .none {
      switch try await SandboxHost.claim(in: directory, stays: sharing == .staying) {
      case .host(let host): hold = host
      case .guest(let url, let pid):
        output.note(
          "keel: no --base-url or --app-id: using the embedded Sandbox at \(url.absoluteString) that keel chat "
            + "(pid \(pid)) runs on \(options.dataDirectory.path).")
        return .guest(url, key: key)
      }
    }
    var configuration = SandboxConfiguration(
      port: stablePort(for: options.dataDirectory), accounts: SandboxConfiguration.tryingAccounts, logLevel: .warning,
      stateDirectory: directory, accessKey: key)
    configuration.seedsChat = true
    let sandbox: RunningSandbox
    do {
      sandbox = try await Sandbox.start(configuration)
    } catch {
      configuration.port = 0  // taken: any free port will do, at the cost of image-cache hits for this command
      sandbox = try await Sandbox.start(configuration)
    }
    do {
      try hold?.announce(sandbox.baseURL)
    } catch {
      await sandbox.stop()
      throw CommandFailure(.localStorage, "Cannot say where the embedded Sandbox runs, in \(directory.path): \(error).")
    }
    output.note(
      "keel: no --base-url or --app-id: using the embedded Sandbox at \(sandbox.baseURL.absoluteString) "
        + "(it serves only this user), kept in \(options.dataDirectory.path).")
    return .embedded(sandbox, key: key)
  }

  /// The port an embedded Sandbox asks for first: the same for a data directory every time, so that the URLs it
  /// serves (cached images among them) stay the same from one command to the next.
  static func stablePort(for directory: URL) -> Int {
    let hash = FNV1a.hash32(directory.standardizedFileURL.path)
    return 20_000 + Int(hash % 10_000)
  }

  /// The base URL of every API but Sendbird's cloud.
  var baseURL: URL? {
    switch self {
    case .server(let url): url
    case .sendbirdCloud: nil
    case .embedded(let sandbox, _): sandbox.baseURL
    case .guest(let url, _): url
    case .unstarted(let url): url
    }
  }

  /// What Keel's services send through: the process's NIO transport, which adds the embedded Sandbox's key to its
  /// requests.
  var transport: any HTTPTransport {
    guard let (origin, key) = keyed else { return CommandTransport.http }
    return SandboxKeyTransport(base: CommandTransport.http, origin: origin, key: key)
  }

  /// What the chat's socket connects through: the process's NIO WebSocket, with the embedded Sandbox's key on the
  /// upgrades to it.
  var webSocket: any WebSocketTransport {
    guard let (origin, key) = keyed else { return CommandTransport.webSocket }
    return SandboxKeyWebSocketTransport(base: CommandTransport.webSocket, origin: origin, key: key)
  }

  /// The embedded Sandbox's address and key, when the target is one.
  private var keyed: (URL, String)? {
    switch self {
    case .embedded(let sandbox, let key): (sandbox.baseURL, key)
    case .guest(let url, let key): (url, key)
    case .server, .sendbirdCloud, .unstarted: nil
    }
  }

  /// Stops an embedded Sandbox, after closing the process's pooled connections to it: the server's graceful
  /// shutdown waits for an idle keep-alive connection that a client opened and never used, which would otherwise
  /// hold the command until the pool's idle timeout (60 s). The command ends right after, so the transport is not
  /// needed again.
  func stop() async {
    guard case .embedded(let sandbox, _) = self else { return }
    try? await CommandTransport.http.shutdown()
    await sandbox.stop()
  }
}
