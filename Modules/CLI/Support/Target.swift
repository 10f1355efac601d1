import Domain
import Foundation
import KeelBasics
import Logging
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
  /// The embedded Sandbox's address, for a command that never talks to a server (`events status`, `images stats`):
  /// nothing is started and nothing announced; the URL only names where its data belongs.
  case unstarted(URL)

  /// The application id used with a Sandbox when none is given.
  static let sandboxApplicationID = "keel-sandbox"
  /// The API token used with a Sandbox when none is given (a Sandbox takes any).
  static let sandboxAPIToken = "sandbox"

  /// The target `options` choose; an embedded Sandbox is started, and said so on standard error, unless the command
  /// sends nothing (`sends` is `false`).
  static func resolve(_ options: GlobalOptions, output: Output, sends: Bool = true) async throws -> Target {
    if let baseURL = options.resolvedBaseURL, let url = URL(string: baseURL) { return .server(url) }
    if options.resolvedAppID != nil { return .sendbirdCloud }
    guard sends else { return .unstarted(URL(string: "http://127.0.0.1:\(stablePort(for: options.dataDirectory))")!) }
    let directory = options.dataDirectory.appendingPathComponent("sandbox", isDirectory: true)
    let key = try SandboxKey.load(in: directory)
    var configuration = SandboxConfiguration(
      port: stablePort(for: options.dataDirectory), logLevel: .warning, stateDirectory: directory, accessKey: key)
    let sandbox: RunningSandbox
    do {
      sandbox = try await Sandbox.start(configuration)
    } catch {
      configuration.port = 0  // taken: any free port will do, at the cost of image-cache hits for this command
      sandbox = try await Sandbox.start(configuration)
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
    case .unstarted(let url): url
    }
  }

  /// What Keel's services send through: the process's NIO transport, which adds the embedded Sandbox's key to its
  /// requests.
  var transport: any HTTPTransport {
    guard case .embedded(let sandbox, let key) = self else { return CommandTransport.http }
    return SandboxKeyTransport(base: CommandTransport.http, origin: sandbox.baseURL, key: key)
  }

  /// Stops an embedded Sandbox.
  func stop() async {
    if case .embedded(let sandbox, _) = self { await sandbox.stop() }
  }
}
