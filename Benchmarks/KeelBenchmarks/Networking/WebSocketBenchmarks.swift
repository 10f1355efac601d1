import Foundation
import KeelConcurrency
import Logging
import NIOCore
import NIOPosix
import NIOTransports
import NIOWebSocket
import Networking
import Sandbox
import WSClient

/// The WebSocket rows, against the Sandbox's echo (SandboxAPI §6a) on loopback: round-trip latency at the median and
/// the 99th percentile, and how many messages per second arrive one way (a server pushing, as a busy channel does).
/// The peer is swift-websocket's `WebSocketClient` used directly, as an app without Keel would: what Keel's
/// connection object (a task per connection, a stream of messages, ordered sends) costs above it.
enum WebSocketBenchmarks {
  /// A chat-sized message: 64 bytes.
  static let payload = String(repeating: "k", count: 64)

  static func comparisons(quick: Bool) -> [Comparison] {
    let roundTrips = quick ? 200 : 5_000
    let burst = quick ? 2_000 : 50_000
    let shared = EchoServer()
    return [
      Comparison(
        name: "websocket.echo.roundTrip.p50", unit: "µs", better: .lower, target: nil, rounds: (1, 5),
        keel: { try await keelRoundTrips(shared.url(), count: roundTrips).p50 },
        peer: { try await peerRoundTrips(shared.url(), count: roundTrips).p50 },
        finish: { await shared.stop() }),
      Comparison(
        name: "websocket.echo.roundTrip.p99", unit: "µs", better: .lower, target: nil, rounds: (1, 5),
        keel: { try await keelRoundTrips(shared.url(), count: roundTrips).p99 },
        peer: { try await peerRoundTrips(shared.url(), count: roundTrips).p99 },
        finish: { await shared.stop() }),
      Comparison(
        name: "websocket.oneWay.throughput", unit: "msg/s", better: .higher, target: nil, rounds: (1, 5),
        keel: { try await keelBurst(shared.url(), count: burst) },
        peer: { try await peerBurst(shared.url(), count: burst) },
        finish: { await shared.stop() }),
    ]
  }

  /// p50 and p99 of round trips, in µs.
  struct Percentiles {
    let p50: Double
    let p99: Double

    init(_ samples: [Duration]) {
      let sorted = samples.map { nanoseconds($0) / 1_000 }.sorted()
      p50 = sorted[sorted.count / 2]
      p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
    }
  }

  private static func keelRoundTrips(_ url: URL, count: Int) async throws -> Percentiles {
    let connection = try await NIOWebSocketTransport().connect(to: url, headers: [:])
    var inbound = connection.messages.makeAsyncIterator()
    let clock = ContinuousClock()
    var samples: [Duration] = []
    samples.reserveCapacity(count)
    for _ in 0..<count {
      let start = clock.now
      try await connection.send(.text(payload))
      guard case .text(let echoed)? = try await inbound.next(), echoed == payload else {
        throw BenchmarkError(description: "keel: the echo did not come back")
      }
      samples.append(start.duration(to: clock.now))
    }
    await connection.close(.normalClosure, reason: "")
    return Percentiles(samples)
  }

  private static func peerRoundTrips(_ url: URL, count: Int) async throws -> Percentiles {
    let samples = Samples()
    try await WebSocketClient.connect(url: url.absoluteString, logger: quietLogger) { inbound, outbound, _ in
      var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
      let clock = ContinuousClock()
      for _ in 0..<count {
        let start = clock.now
        try await outbound.write(.text(payload))
        guard case .text(let echoed)? = try await messages.next(), echoed == payload else {
          throw BenchmarkError(description: "peer: the echo did not come back")
        }
        samples.append(start.duration(to: clock.now))
      }
      try await outbound.close(.normalClosure, reason: nil)
    }
    return Percentiles(samples.all)
  }

  /// Messages per second from the moment the burst is asked for until its last message is read.
  private static func keelBurst(_ url: URL, count: Int) async throws -> Double {
    let connection = try await NIOWebSocketTransport().connect(to: url, headers: [:])
    let clock = ContinuousClock()
    let start = clock.now
    try await connection.send(.text("burst \(count) \(payload.utf8.count)"))
    var received = 0
    for try await _ in connection.messages {
      received += 1
      if received == count { break }
    }
    let elapsed = start.duration(to: clock.now)
    await connection.close(.normalClosure, reason: "")
    guard received == count else { throw BenchmarkError(description: "keel: \(received) of \(count) arrived") }
    return Double(count) / (nanoseconds(elapsed) / 1e9)
  }

  private static func peerBurst(_ url: URL, count: Int) async throws -> Double {
    let samples = Samples()
    try await WebSocketClient.connect(url: url.absoluteString, logger: quietLogger) { inbound, outbound, _ in
      let clock = ContinuousClock()
      let start = clock.now
      try await outbound.write(.text("burst \(count) \(payload.utf8.count)"))
      var received = 0
      for try await _ in inbound.messages(maxSize: 1 << 20) {
        received += 1
        if received == count { break }
      }
      samples.append(start.duration(to: clock.now))
      guard received == count else { throw BenchmarkError(description: "peer: \(received) of \(count) arrived") }
      try await outbound.close(.normalClosure, reason: nil)
    }
    return Double(count) / (nanoseconds(samples.all[0]) / 1e9)
  }

  private static let quietLogger: Logger = {
    var logger = Logger(label: "keel-bench.websocket")
    logger.logLevel = .critical
    return logger
  }()

  /// Durations a handler closure records for the caller.
  final class Samples: Sendable {
    private let storage = Locked<[Duration]>([])
    func append(_ sample: Duration) { storage.withLock { $0.append(sample) } }
    var all: [Duration] { storage.withLock { $0 } }
  }

  /// The Sandbox a row's rounds share, started by the first round that needs it and stopped after the row.
  actor EchoServer {
    private var sandbox: RunningSandbox?

    func url() async throws -> URL {
      if sandbox == nil {
        sandbox = try await Sandbox.start(SandboxConfiguration(rateLimitsEnabled: false, logLevel: .critical))
      }
      return URL(string: "ws://127.0.0.1:\(sandbox!.port)/ws/echo")!
    }

    func stop() async {
      await sandbox?.stop()
      sandbox = nil
    }
  }
}
