import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTPCompression
import NIOTransports
import Networking
import Sandbox

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What every round of the throughput rows shares: one Sandbox with the bench user in it, Keel's client over each
/// transport, and the peers' clients (a URLSession, a raw AsyncHTTPClient). The first round starts them; ``stop()``
/// ends them.
///
/// Each side has a long-lived session of its own, configured alike (ephemeral, at most ``connectionsPerHost``
/// connections to the host), as an app keeps one: the warm-up rounds open the connections, and the measured rounds see
/// the steady state, not connection set-up.
actor SandboxSessions {
  /// What a round uses.
  struct Running: Sendable {
    let baseURL: URL
    let port: Int
    /// Keel over `URLSessionTransport`.
    let keel: Networking.HTTPClient
    /// Keel over `NIOHTTPTransport`, with the same interceptors.
    let keelNIO: Networking.HTTPClient
    let nioTransport: NIOHTTPTransport
    /// A hand-written app's URLSession.
    let peer: URLSession
    /// A hand-written app's AsyncHTTPClient, inflating compressed answers as Keel's NIO transport does.
    let peerNIO: AsyncHTTPClient.HTTPClient
  }

  /// The `Api-Token` both sides send.
  static let token = "bench"
  /// As many connections as there are concurrent loops, so that no loop waits for a connection.
  static let connectionsPerHost = 8

  private var sandbox: RunningSandbox?
  private var running: Running?

  /// The shared state, started on first use.
  func start() async throws -> Running {
    if let running { return running }
    let sandbox = try await Sandbox.start(SandboxConfiguration(rateLimitsEnabled: false, logLevel: .critical))
    self.sandbox = sandbox
    let keel = Networking.HTTPClient(
      transport: URLSessionTransport(session: Self.session()),
      interceptors: [RetryPolicy(), HeaderInterceptor(name: "Api-Token", value: Self.token)])
    let nioTransport = NIOHTTPTransport(configuration: .init(maxConnectionsPerHost: Self.connectionsPerHost))
    let keelNIO = Networking.HTTPClient(
      transport: nioTransport,
      interceptors: [RetryPolicy(), HeaderInterceptor(name: "Api-Token", value: Self.token)])
    let created = try await keel.send(APIRequest<BenchUser>.json(BenchUsersEndpoint.create(baseURL: sandbox.baseURL)))
    try created.check()
    var pool = AsyncHTTPClient.HTTPClient.Configuration.ConnectionPool()
    pool.concurrentHTTP1ConnectionsPerHostSoftLimit = Self.connectionsPerHost
    // The same transport work as Keel's NIO transport does by default (and URLSession always): compressed answers
    // are accepted and inflated. Without it, the raw client skips a pipeline handler Keel's has on every response
    // (about 2-3 % of this row's throughput), and the row would weigh a transport setting, not the stack above it.
    let peerNIO = AsyncHTTPClient.HTTPClient(
      eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup,
      configuration: .init(connectionPool: pool, decompression: .enabled(limit: .ratio(100))))
    let running = Running(
      baseURL: sandbox.baseURL, port: sandbox.port, keel: keel, keelNIO: keelNIO, nioTransport: nioTransport,
      peer: Self.session(), peerNIO: peerNIO)
    self.running = running
    return running
  }

  /// Closes both sessions and stops the Sandbox.
  func stop() async {
    if let running {
      (running.keel.transport as? URLSessionTransport)?.session.finishTasksAndInvalidate()
      running.peer.finishTasksAndInvalidate()
      try? await running.nioTransport.shutdown()
      try? await running.peerNIO.shutdown()
    }
    running = nil
    await sandbox?.stop()
    sandbox = nil
  }

  private static func session() -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = connectionsPerHost
    return URLSession(configuration: configuration)
  }
}
