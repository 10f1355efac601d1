import Foundation
import Logging
import Networking
import Sandbox

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What every round of the throughput row shares: one Sandbox with the bench user in it, Keel's client and the peer's
/// session. The first round starts them; ``stop()`` ends them.
///
/// Each side has a long-lived session of its own, configured alike (ephemeral, at most
/// ``connectionsPerHost`` connections to the host), as an app keeps one: the warm-up rounds open the connections, and
/// the measured rounds see the steady state, not connection set-up.
actor SandboxSessions {
  /// What a round uses.
  struct Running: Sendable {
    let baseURL: URL
    let keel: HTTPClient
    let peer: URLSession
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
    let keel = HTTPClient(
      transport: URLSessionTransport(session: Self.session()),
      interceptors: [RetryPolicy(), HeaderInterceptor(name: "Api-Token", value: Self.token)])
    let created = try await keel.send(APIRequest<BenchUser>.json(BenchUsersEndpoint.create(baseURL: sandbox.baseURL)))
    try created.check()
    let running = Running(baseURL: sandbox.baseURL, keel: keel, peer: Self.session())
    self.running = running
    return running
  }

  /// Closes both sessions and stops the Sandbox.
  func stop() async {
    if let running {
      (running.keel.transport as? URLSessionTransport)?.session.finishTasksAndInvalidate()
      running.peer.finishTasksAndInvalidate()
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
