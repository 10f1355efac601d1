import ArgumentParser
import Domain
import Foundation
import Logging

/// The options every `keel` command that talks to a server takes: where to, as whom, where to keep files, how to
/// print.
struct GlobalOptions: ParsableArguments {
  @Option(help: "The server for every API (a Sandbox or your backend), e.g. http://127.0.0.1:8080. Also KEEL_BASE_URL.")
  var baseURL: String?

  @Option(help: "The Sendbird application id; without --base-url, the Sendbird cloud. Also KEEL_APP_ID.")
  var appId: String?

  @Option(help: "The Sendbird API token. Also KEEL_API_TOKEN.")
  var apiToken: String?

  @Option(
    help: ArgumentHelp(
      "Where Keel keeps its user cache, event queue, image cache and tokens.",
      discussion: "Default: \(KeelConfiguration().resolvedDataDirectory.path)"))
  var dataDir: String?

  @Option(help: "trace, debug, info, notice, warning, error or critical (logs go to standard error).")
  var logLevel = "error"

  @Flag(help: "Print machine-readable JSON on standard output.")
  var json = false

  func validate() throws {
    try Self.validate(logLevel: logLevel)
    if let baseURL = resolvedBaseURL {
      guard let url = URL(string: baseURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
        throw ValidationError("--base-url \(baseURL) is not an http(s) URL such as http://127.0.0.1:8080.")
      }
    }
    if let appId = resolvedAppID, appId.isEmpty { throw ValidationError("--app-id is empty.") }
    if let token = resolvedAPIToken,
      token.isEmpty || token.unicodeScalars.contains(where: { $0.value < 0x21 || (0x7F...0x9F).contains($0.value) })
    {
      throw ValidationError("--api-token must be non-empty, without spaces or control characters.")
    }
    if let dataDir, dataDir.trimmingCharacters(in: .whitespaces).isEmpty {
      throw ValidationError("--data-dir is empty; give a directory, or leave the option out for the default.")
    }
  }

  /// Fails unless `logLevel` names a level.
  static func validate(logLevel: String) throws {
    guard Logger.Level(rawValue: logLevel) != nil else {
      throw ValidationError(
        "--log-level \(logLevel) is not one of trace, debug, info, notice, warning, error, critical.")
    }
  }

  /// The server from `--base-url` or `KEEL_BASE_URL`.
  var resolvedBaseURL: String? { baseURL ?? ProcessInfo.processInfo.environment["KEEL_BASE_URL"] }

  /// The application id from `--app-id` or `KEEL_APP_ID`.
  var resolvedAppID: String? { appId ?? ProcessInfo.processInfo.environment["KEEL_APP_ID"] }

  /// The API token from `--api-token` or `KEEL_API_TOKEN`.
  var resolvedAPIToken: String? { apiToken ?? ProcessInfo.processInfo.environment["KEEL_API_TOKEN"] }

  /// The data directory: `--data-dir`, else the platform's default.
  var dataDirectory: URL {
    dataDir.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? KeelConfiguration().resolvedDataDirectory
  }

  /// The log level chosen.
  var level: Logger.Level { Logger.Level(rawValue: logLevel) ?? .error }
}
