import Domain
import Foundation
import Logging
import Sandbox

/// The server a command talks to: the one `--base-url` names, the Sendbird cloud for `--app-id` alone, or else a
/// Sandbox started for this command only.
enum Target {
  /// A server at a URL: a Sandbox (`keel sandbox serve`) or a backend with the same API.
  case server(URL)
  /// The Sendbird cloud, for the application `--app-id` names; it has no sign-in, events or images API.
  case sendbirdCloud
  /// A Sandbox on 127.0.0.1, running while the command does.
  case embedded(RunningSandbox)

  /// The application id used with a Sandbox when none is given.
  static let sandboxApplicationID = "keel-sandbox"
  /// The API token used with a Sandbox when none is given (a Sandbox takes any).
  static let sandboxAPIToken = "sandbox"

  /// The target `options` choose; an embedded Sandbox is started, and said so on standard error.
  static func resolve(_ options: GlobalOptions, output: Output) async throws -> Target {
    if let baseURL = options.baseURL, let url = URL(string: baseURL) { return .server(url) }
    if options.resolvedAppID != nil { return .sendbirdCloud }
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .error))
    output.note(
      "keel: no --base-url or --app-id: using a Sandbox at \(sandbox.baseURL.absoluteString) for this command only.")
    return .embedded(sandbox)
  }

  /// The base URL of every API but Sendbird's cloud.
  var baseURL: URL? {
    switch self {
    case .server(let url): url
    case .sendbirdCloud: nil
    case .embedded(let sandbox): sandbox.baseURL
    }
  }

  /// Stops an embedded Sandbox.
  func stop() async {
    if case .embedded(let sandbox) = self { await sandbox.stop() }
  }
}
