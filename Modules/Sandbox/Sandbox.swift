import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// A real local HTTP server that speaks every API Keel talks to, for tests, examples and the CLI
/// (Documentation/SandboxAPI.md).
///
/// ```swift
/// import Foundation
/// #if canImport(FoundationNetworking)
///   import FoundationNetworking
/// #endif
///
/// let sandbox = try await Sandbox.start()
/// var request = URLRequest(url: sandbox.baseURL.appending(path: "v3/users"))   // http://127.0.0.1:54321/v3/users
/// request.setValue("T", forHTTPHeaderField: "Api-Token")                       // any token: open mode
/// let (body, _) = try await URLSession.shared.data(for: request)
/// print(String(decoding: body, as: UTF8.self))                                 // a first page, empty
/// await sandbox.stop()
/// ```
///
/// Each started Sandbox has its own data and, by default, its own ephemeral port, so tests can run many in parallel;
/// a ``SandboxConfiguration/stateDirectory`` makes its users and sessions outlive it.
public enum Sandbox {
  /// Starts a Sandbox and returns once it accepts connections.
  ///
  /// - Parameter configuration: Where to listen and which options apply.
  /// - Returns: The running Sandbox, with the base URL it is bound to.
  /// - Throws: The server's error when it cannot start, for example when the port is taken, or the file system's
  ///   when the state directory cannot be created.
  public static func start(_ configuration: SandboxConfiguration = .init()) async throws -> RunningSandbox {
    var logger = Logger(label: "keel.sandbox")
    logger.logLevel = configuration.logLevel
    let stateFile = try configuration.stateDirectory.map(SandboxStateFile.init(directory:))
    let responder = SandboxResponder(configuration: configuration, stateFile: stateFile, logger: logger)
    let (ports, portContinuation) = AsyncStream<Int>.makeStream()
    let application = Application(
      responder: responder,
      // An idle timeout bounds how long a stalled client can hold a connection, before its first request too; a first
      // request the parser refuses is answered 400 (GuardedHTTPChannel). The Socket.IO server (§6) and the WebSocket echo (§6a) upgrade on their own
      // paths; every other request is plain HTTP/1.1.
      server: HTTPServerBuilder { httpResponder in
        GuardedHTTPChannel(
          base: HTTP1WebSocketUpgradeChannel(
            responder: httpResponder,
            configuration: .init(
              http1: .init(idleTimeout: TimeAmount(configuration.idleTimeout)),
              ws: .init(maxFrameSize: WebSocketEcho.maxMessageSize)),
            shouldUpgrade: WebSocketEcho.shouldUpgrade(
              accessKey: configuration.accessKey, realtime: responder.realtime)),
          idleTimeout: TimeAmount(configuration.idleTimeout))
      },
      configuration: ApplicationConfiguration(
        address: .hostname(configuration.host, port: configuration.port), serverName: nil),
      onServerRunning: { channel in
        portContinuation.yield(channel.localAddress?.port ?? configuration.port)
        portContinuation.finish()
      },
      logger: logger
    )
    var groupConfiguration = ServiceGroupConfiguration(
      services: [application], gracefulShutdownSignals: [], logger: logger)
    // stop() lets requests in flight finish, but not forever (a long injected latency, a client trickling a body).
    groupConfiguration.maximumGracefulShutdownDuration = .seconds(5)
    let group = ServiceGroup(configuration: groupConfiguration)
    let task = Task {
      // Ends the wait below if the server fails before it runs.
      defer { portContinuation.finish() }
      try await group.run()
    }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else {
      // Cancelled while starting: cancel the server too, so that nothing is left bound.
      if Task.isCancelled { task.cancel() }
      try await task.value
      throw Task.isCancelled
        ? CancellationError() : SandboxError(description: "The Sandbox stopped before it accepted connections.")
    }
    return RunningSandbox(
      host: configuration.host, port: port, controlKey: configuration.controlKey ?? configuration.accessKey,
      group: group, task: task)
  }
}

/// A failure to start the Sandbox.
public struct SandboxError: Error, CustomStringConvertible {
  /// What went wrong.
  public let description: String
}
