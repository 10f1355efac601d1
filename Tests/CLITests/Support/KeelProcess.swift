import Foundation
import Logging
import Sandbox
import TestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The built `keel` binary, run as a user runs it.
enum Keel {
  /// The binary, built beside the test bundle.
  static var binary: URL { ChildProcess.builtExecutable("keel") }

  /// Runs `keel` with `arguments` to its end (at most two and a half minutes: under the whole suite a debug keel
  /// flushing a thousand events has run past one) and returns what it printed and its status.
  static func run(_ arguments: [String]) async throws -> ChildProcess.Run {
    try await ChildProcess.run(binary, arguments: arguments, killAfter: .seconds(150))
  }

  /// A fresh, empty data directory.
  static func dataDirectory(_ name: String = #function) throws -> URL {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("keel-cli-tests", isDirectory: true)
      .appendingPathComponent("\(name.filter { $0.isLetter })-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  /// The global options that point a command at `sandbox` and keep its files in `directory`.
  static func options(_ sandbox: RunningSandbox, _ directory: URL) -> [String] {
    ["--base-url", sandbox.baseURL.absoluteString, "--data-dir", directory.path]
  }

  /// Runs `body` with a Sandbox and a fresh data directory, then stops the one and removes the other.
  static func withSandbox(
    _ body: (RunningSandbox, URL) async throws -> Void, function: String = #function
  ) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .error))
    let directory = try dataDirectory(function)
    defer { try? FileManager.default.removeItem(at: directory) }
    do {
      try await body(sandbox, directory)
      await sandbox.stop()
    } catch {
      await sandbox.stop()
      throw error
    }
  }

  /// A JSON document printed on standard output.
  static func json(_ run: ChildProcess.Run) throws -> [String: Any] {
    let data = Data(run.lines.joined(separator: "\n").utf8)
    return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
  }
}
