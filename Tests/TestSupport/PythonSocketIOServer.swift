import Foundation
import KeelConcurrency

#if canImport(Glibc)
  import Glibc
#endif

/// python-socketio, the independent Socket.IO server (Tests/Peers/socketio_server.py), started on 127.0.0.1 for a
/// test: pause it (SIGSTOP: a silent network), resume it, restart it on the same port.
///
/// Its interpreter is `KEEL_PEERS_PYTHON`, or `.venv-peers/bin/python3` in the package (``PythonEnvironment/peers``).
public final class PythonSocketIOServer: Sendable {
  /// The package's root folder.
  public static let packageRoot = PythonEnvironment.packageRoot

  /// The Python with python-socketio, found (or installed) once per test process. Only ever read on a thread of its
  /// own (``interpreter()``): the check starts a Python that imports python-socketio, which in a fresh virtual
  /// environment takes seconds, and every test's task that asks meanwhile waits for the first one's answer.
  private static let foundInterpreter: Result<URL, PeerUnavailable> = PythonEnvironment.peers.findOrInstall()

  private static func interpreter() async -> Result<URL, PeerUnavailable> {
    await onOwnThread { foundInterpreter }
  }

  /// The port it listens on.
  public let port: Int
  private let options: [String]
  private let process = Locked<Process?>(nil)
  private let logFile: URL?

  /// `http://127.0.0.1:PORT`.
  public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// Starts a server with a heartbeat of `pingInterval` and `pingTimeout` seconds, on `port` (a free one by default).
  /// With `logging`, it writes every packet and every close with its reason to a file of its own, for ``log``.
  ///
  /// - Throws: ``PeerUnavailable`` when python-socketio cannot be found or installed, or the server does not start.
  public init(pingInterval: Double = 25, pingTimeout: Double = 20, port: Int = 0, logging: Bool = false) async throws {
    options =
      ["--ping-interval", "\(pingInterval)", "--ping-timeout", "\(pingTimeout)"] + (logging ? ["--log"] : [])
    logFile =
      logging
      ? FileManager.default.temporaryDirectory.appendingPathComponent("keel-socketio-\(UUID().uuidString).log") : nil
    let (process, port) = try await Self.start(options + ["--port", "\(port)"], log: logFile)
    self.port = port
    self.process.withLock { $0 = process }
  }

  deinit {
    if let process = process.withLock({ $0 }), process.isRunning { kill(process.processIdentifier, SIGKILL) }
    if let logFile { try? FileManager.default.removeItem(at: logFile) }
  }

  /// The end of what a server started with `logging` wrote (its last 40 lines), for a failure's message; empty without.
  public var log: String {
    guard let logFile, let text = try? String(contentsOf: logFile, encoding: .utf8) else { return "" }
    return text.split(separator: "\n").suffix(40).joined(separator: "\n")
  }

  /// Stops it (SIGKILL: a test runner may have left SIGTERM ignored, which a child inherits) and waits for its end.
  public func stop() async {
    guard let process = process.withLock({ $0 }) else { return }
    kill(process.processIdentifier, SIGKILL)
    await ChildProcess.waitForExit(process)
  }

  /// How its process ended, for a failure's message: `nil` while it runs (a paused one runs).
  public var ended: String? {
    guard let process = process.withLock({ $0 }), !process.isRunning else { return nil }
    let how = process.terminationReason == .uncaughtSignal ? "was killed by signal" : "exited with status"
    return "python-socketio (pid \(process.processIdentifier)) \(how) \(process.terminationStatus)"
  }

  /// Freezes it: it keeps its sockets but sends nothing, pings included.
  public func pause() {
    _ = process.withLock { $0.map { kill($0.processIdentifier, SIGSTOP) } }
  }

  /// Lets a paused server go on.
  public func resume() {
    _ = process.withLock { $0.map { kill($0.processIdentifier, SIGCONT) } }
  }

  /// Stops it and starts a new one on the same port.
  public func restart() async throws {
    await stop()
    let (process, _) = try await Self.start(options + ["--port", "\(port)"], log: logFile)
    self.process.withLock { $0 = process }
  }

  private static func start(_ arguments: [String], log: URL?) async throws -> (Process, Int) {
    let python = try await interpreter().get()
    let process = Process()
    process.executableURL = python
    process.arguments = [packageRoot.appendingPathComponent("Tests/Peers/socketio_server.py").path] + arguments
    let output = Pipe()
    process.standardOutput = output
    if let log {
      // Owner-only, appended to across a restart.
      if !FileManager.default.fileExists(atPath: log.path) {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil, attributes: [.posixPermissions: 0o600])
      }
      let handle = try FileHandle(forWritingTo: log)
      handle.seekToEndOfFile()
      process.standardError = handle
    } else {
      process.standardError = FileHandle.nullDevice
    }
    try process.run()
    let line = Locked<String?>(nil)
    Thread.detachNewThread {
      let first = ChildProcess.readLine(output.fileHandleForReading)
      line.withLock { $0 = first ?? "" }
    }
    _ = await poll(for: .seconds(30)) { line.withLock { $0 } != nil }
    guard let text = line.withLock({ $0 }), text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
      kill(process.processIdentifier, SIGKILL)
      throw PeerUnavailable("python-socketio did not start (it printed \(line.withLock { $0 } ?? "nothing")).")
    }
    return (process, port)
  }
}
