import Foundation
import Logging
import Networking
import Sandbox

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What every round of the concurrent-loads row shares: one Sandbox and one `URLSession` per side. The first round
/// starts them; ``stop()`` ends them. Each round asks for an image id of its own.
actor ImageLoaderBenchSandbox {
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
