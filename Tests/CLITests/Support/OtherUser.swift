import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Another user of the machine, for tests of what Keel keeps from them: `nobody` (uid 65534) through `setpriv` when
/// the tests run as root, as they do in CI. Run as anyone else, the command runs as the same user, and only checks
/// that do not rest on file permissions (the Sandbox's key) mean anything; `isSomeoneElse` tells which.
enum OtherUser {
  /// Whether commands really run as another user.
  static var isSomeoneElse: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: setpriv) }

  private static let setpriv = "/usr/bin/setpriv"

  /// Runs `command` (an absolute path, then its arguments) as the other user and returns its output and status.
  static func run(_ command: [String]) async throws -> ChildProcess.Run {
    let (executable, arguments) =
      isSomeoneElse
      ? (setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", "--"] + command)
      : (command[0], Array(command.dropFirst()))
    return try await ChildProcess.run(
      URL(fileURLWithPath: executable), arguments: arguments, killAfter: .seconds(30))
  }

  /// The HTTP status `curl` gets for `method url` with `headers`, as the other user.
  static func status(_ method: String, _ url: String, headers: [String: String] = [:]) async throws -> String {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else {
      Issue.record("These tests need curl at /usr/bin/curl (apt-get install curl; .ci/run installs it).")
      return ""
    }
    let run = try await run(
      ["/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{http_code}\n", "-X", method, url]
        + headers.flatMap { ["-H", "\($0.key): \($0.value)"] })
    return run.lines.first ?? ""
  }
}
