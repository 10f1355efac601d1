import Foundation
import Logging
import Sandbox

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What every round of a Domain row against a Sandbox shares (the event tracker's delivery, the image loader's
/// concurrent loads): one Sandbox (open mode: any token is a tenant) and one `URLSession` per side, so that the
/// measured rounds see warm connections, as an app's long-lived session does. The first round starts them;
/// ``stop()`` ends them. Each round asks for a tenant or an image of its own.
actor DomainBenchSandbox {
  /// What a round uses.
  struct Running: Sendable {
    let baseURL: URL
    let keelSession: URLSession
    let peerSession: URLSession
  }

  private var sandbox: RunningSandbox?
  private var running: Running?
  private var rounds = 0

  /// The shared state, started on first use.
  func start() async throws -> Running {
    if let running { return running }
    let sandbox = try await Sandbox.start(SandboxConfiguration(rateLimitsEnabled: false, logLevel: .critical))
    self.sandbox = sandbox
    let running = Running(
      baseURL: sandbox.baseURL, keelSession: URLSession(configuration: .ephemeral),
      peerSession: URLSession(configuration: .ephemeral))
    self.running = running
    return running
  }

  /// An `Api-Token` no earlier round used: a tenant of its own, with no events yet.
  func nextToken() -> String {
    rounds += 1
    return "bench-events-\(rounds)"
  }

  /// Throws unless the tenant of `token` holds exactly `received` events, none of them sent twice.
  func confirm(_ token: String, received: Int) async throws {
    guard let running else { throw BenchmarkError(description: "the Sandbox is not running") }
    var request = URLRequest(
      url: running.baseURL.appendingPathComponent("v1").appendingPathComponent("events")
        .appendingPathComponent("stats"))
    request.setValue(token, forHTTPHeaderField: "Api-Token")
    let (body, _) = try await running.peerSession.data(for: request)
    let json = try JSONSerialization.jsonObject(with: body) as? [String: Any]
    let unique = (json?["unique"] as? NSNumber)?.intValue
    let duplicates = (json?["duplicates"] as? NSNumber)?.intValue
    guard unique == received, duplicates == 0 else {
      throw BenchmarkError(description: "the Sandbox holds \(json ?? [:]) for \(received) events sent")
    }
  }

  /// A URL no earlier round has loaded.
  func nextImageURL() throws -> URL {
    guard let running else { throw BenchmarkError(description: "the Sandbox is not running") }
    rounds += 1
    guard let url = URL(string: "\(running.baseURL.absoluteString)/images/round-\(rounds).png?size=64") else {
      throw BenchmarkError(description: "cannot form an image URL on \(running.baseURL)")
    }
    return url
  }

  /// The Sandbox's `imageHits` counter: image requests it has answered.
  func imageHits() async throws -> Int {
    guard let running else { throw BenchmarkError(description: "the Sandbox is not running") }
    let stats = running.baseURL.appendingPathComponent("_sandbox").appendingPathComponent("stats")
    let (body, _) = try await running.peerSession.data(from: stats)
    let json = try JSONSerialization.jsonObject(with: body) as? [String: Any]
    return (json?["imageHits"] as? NSNumber)?.intValue ?? 0
  }

  /// Closes both sessions and stops the Sandbox.
  func stop() async {
    running?.keelSession.finishTasksAndInvalidate()
    running?.peerSession.finishTasksAndInvalidate()
    running = nil
    await sandbox?.stop()
    sandbox = nil
  }
}
