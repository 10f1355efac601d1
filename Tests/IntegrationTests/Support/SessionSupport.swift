import Domain
import Foundation
import Logging
import Networking
import Persistence
import Sandbox

/// A fresh, empty directory for a test's secure store.
func sessionStoreDirectory(_ name: String = #function) throws -> URL {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("keel-session-tests", isDirectory: true)
    .appendingPathComponent("\(name.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString)", isDirectory: true)
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  return directory
}

/// A session manager on `sandbox` as an app wires it: real HTTP through `transport`, an encrypted file store, real
/// time.
func sandboxSessions(
  on sandbox: RunningSandbox,
  store: any SecureStore,
  transport: any HTTPTransport,
  logger: Logger = Logger(label: "keel.tests.sessions") { _ in SwiftLogNoOpLogHandler() }
) -> SessionManager {
  SessionManager(
    baseURL: sandbox.baseURL, transport: transport, secureStore: store, clock: ContinuousClock(),
    now: { Date() }, logger: logger)
}

/// The session the store keeps, if any.
func storedCredentials(in store: any SecureStore) throws -> Credentials? {
  try store.value(Credentials.self, forKey: SessionManager.storageKey)
}

/// What most session tests start from: a Sandbox, an encrypted store in a fresh directory, and a session manager on
/// both, sending through `transport`. ``finish()`` stops the Sandbox and removes the directory.
struct SessionsOnSandbox {
  let sandbox: RunningSandbox
  let directory: URL
  let store: EncryptedFileSecureStore
  let sessions: SessionManager

  static func start(over transport: any HTTPTransport, name: String = #function) async throws -> SessionsOnSandbox {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = try sessionStoreDirectory(name)
    let store = try EncryptedFileSecureStore(directory: directory)
    return SessionsOnSandbox(
      sandbox: sandbox, directory: directory, store: store,
      sessions: sandboxSessions(on: sandbox, store: store, transport: transport))
  }

  /// Stops the Sandbox and removes the store's directory.
  func finish() async {
    await sandbox.stop()
    try? FileManager.default.removeItem(at: directory)
  }
}
