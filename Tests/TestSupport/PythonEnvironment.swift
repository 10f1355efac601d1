import Foundation

/// A Python virtual environment in the package with an independent peer's pinned packages: python-socketio
/// (`.venv-peers`, Tests/Peers/requirements.txt) or Playwright (`.venv-browser`, Tests/Browser/requirements.txt).
/// `make peers` and `make browser` (and so `.ci/run`) create them; when one is missing, the first test that needs it
/// creates it the same way, and fails with what to do if it cannot.
public struct PythonEnvironment: Sendable {
  /// The folder, in the package's root.
  let folder: String
  /// The requirements file, from the package's root.
  let requirements: String
  /// The modules whose import tells that it is installed.
  let modules: String
  /// The variable that names another Python to use instead.
  let override: String
  /// The `make` target that installs it.
  let target: String

  /// python-socketio and aiohttp, for the realtime tests and keel-bench.
  public static let peers = PythonEnvironment(
    folder: ".venv-peers", requirements: "Tests/Peers/requirements.txt", modules: "socketio, aiohttp",
    override: "KEEL_PEERS_PYTHON", target: "peers")
  /// Playwright, for the console's browser tests.
  public static let browser = PythonEnvironment(
    folder: ".venv-browser", requirements: "Tests/Browser/requirements.txt", modules: "playwright.sync_api",
    override: "KEEL_BROWSER_PYTHON", target: "browser")

  /// The package's root folder.
  public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// Its Python: the one the override names, or the environment's, created and installed first if need be. Blocks for
  /// as long as an installation takes: call it on a thread of its own.
  public func findOrInstall() -> Result<URL, PeerUnavailable> {
    let fileManager = FileManager.default
    if let configured = ProcessInfo.processInfo.environment[override] {
      return fileManager.isExecutableFile(atPath: configured)
        ? .success(URL(fileURLWithPath: configured))
        : .failure(PeerUnavailable("\(override)=\(configured) is not an executable."))
    }
    let venv = Self.packageRoot.appendingPathComponent(folder)
    let python = venv.appendingPathComponent("bin/python3")
    if !fileManager.isExecutableFile(atPath: python.path) || !Self.run(python.path, ["-c", "import \(modules)"]) {
      let requirements = Self.packageRoot.appendingPathComponent(requirements).path
      guard Self.run("/usr/bin/env", ["python3", "-m", "venv", venv.path]),
        Self.run(python.path, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", requirements])
      else {
        return .failure(
          PeerUnavailable(
            "\(modules) is not installed and could not be: run `make \(target)` (python3 -m venv \(folder), then pip "
              + "install -r \(self.requirements)), or set \(override) to a Python that has it."))
      }
    }
    return .success(python)
  }

  private static func run(_ executable: String, _ arguments: [String]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }
}

/// The independent peer a test needs is missing; the message says how to get it.
public struct PeerUnavailable: Error, CustomStringConvertible {
  /// What is missing and what to do.
  public let description: String
  /// A missing peer, and what to do: `description`.
  public init(_ description: String) { self.description = description }
}
