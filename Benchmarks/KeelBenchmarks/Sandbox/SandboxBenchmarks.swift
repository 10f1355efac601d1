import Hummingbird
import Logging
import NIOCore
import Sandbox

/// The Sandbox row: how many `GET /v3/users/{id}` it serves per second over loopback with 16 concurrent clients, next
/// to the ceiling, a minimal Hummingbird route that returns a fixed body. Rate limits are off: the row measures the
/// server, not the free-trial limits it imitates.
enum SandboxBenchmarks {
  static func comparisons(quick: Bool) -> [Comparison] {
    let duration: Duration = quick ? .milliseconds(500) : .seconds(2)
    return [
      Comparison(
        name: "sandbox.throughput.getUser", unit: "req/s", better: .higher, target: 3_000, rounds: (1, 3),
        keel: { try await keelThroughput(duration: duration) },
        peer: { try await ceilingThroughput(duration: duration) })
    ]
  }

  private static func keelThroughput(duration: Duration) async throws -> Double {
    let sandbox = try await Sandbox.start(SandboxConfiguration(rateLimitsEnabled: false, logLevel: .critical))
    let token = ["Api-Token": "bench"]
    do {
      try await create(port: sandbox.port, token: token)
      let rate = try await LoopbackLoad.requestsPerSecond(
        port: sandbox.port, path: "/v3/users/bench-user", headers: token, connections: 16, duration: duration)
      await sandbox.stop()
      return rate
    } catch {
      await sandbox.stop()
      throw error
    }
  }

  /// Creates the user the load reads, with the load generator's own request shape.
  private static func create(port: Int, token: [String: String]) async throws {
    let body = #"{"user_id":"bench-user","nickname":"Bench","profile_url":""}"#
    let head = [
      "POST /v3/users HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json",
      "Content-Length: \(body.utf8.count)", "Api-Token: \(token["Api-Token"]!)", "Connection: close",
    ].joined(separator: "\r\n")
    try await LoopbackLoad.sendOnce(port: port, raw: head + "\r\n\r\n" + body)
  }

  private static func ceilingThroughput(duration: Duration) async throws -> Double {
    let router = Router()
    let fixed = ByteBuffer(string: #"{"user_id":"bench-user","nickname":"Bench","profile_url":""}"#)
    router.get("/v3/users/:id") { _, _ in
      Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: fixed))
    }
    var logger = Logger(label: "keel-bench.ceiling")
    logger.logLevel = .critical
    let (ports, portContinuation) = AsyncStream<Int>.makeStream()
    let application = Application(
      router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
      onServerRunning: { channel in
        portContinuation.yield(channel.localAddress?.port ?? 0)
        portContinuation.finish()
      }, logger: logger)
    let server = Task { try await application.runService(gracefulShutdownSignals: []) }
    defer { server.cancel() }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else { throw BenchmarkError(description: "ceiling server did not start") }
    return try await LoopbackLoad.requestsPerSecond(
      port: port, path: "/v3/users/bench-user", headers: [:], connections: 16, duration: duration)
  }
}
