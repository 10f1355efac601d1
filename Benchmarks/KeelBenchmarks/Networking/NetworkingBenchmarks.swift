import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Networking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The Networking rows: the full stack over loopback on each transport against raw `URLSession`, raw AsyncHTTPClient
/// and keel-bench's raw-socket load generator, and the cost per request of everything Keel adds above the transport.
enum NetworkingBenchmarks {
  /// Concurrent request loops in the throughput row.
  static let concurrency = 8

  /// All rows, in report order.
  static func comparisons(quick: Bool) -> [Comparison] {
    let duration: Duration = quick ? .milliseconds(250) : .milliseconds(400)
    let requests = quick ? 2_000 : 20_000
    let shared = SandboxSessions()
    return [
      // Many short rounds rather than a few long ones: URLSession's rounds spread by tens of percent on a shared
      // two-core machine (an A/A run of the peer against itself gave 1.16), and finely interleaved rounds let that
      // drift hit both sides alike. The 0.9 ratio is judged on the medians.
      Comparison(
        name: "networking.throughput.getUser", unit: "req/s", better: .higher, target: nil, minRatio: 0.9,
        rounds: (5, 25),
        keel: { try await keelThroughput(shared.start(), nio: false, duration: duration) },
        peer: { try await peerThroughput(shared.start(), duration: duration) },
        finish: { await shared.stop() }),
      // The NIO transport's targets (Decision 0011): ≥ 3 × URLSession, ≥ 0.5 × the raw-socket load generator (the
      // practical ceiling of this machine, the Sandbox sharing its two cores with the client), and ≥ 0.9 × raw
      // AsyncHTTPClient for the whole stack (interceptors, no limiter, status check, decoding).
      nioRow(
        "vsURLSession", minRatio: 3, shared: shared,
        peer: { try await peerThroughput(shared.start(), duration: duration) }, duration: duration),
      nioRow(
        "vsLoadGenerator", minRatio: 0.5, shared: shared,
        peer: { try await loadGeneratorThroughput(shared.start(), duration: duration) }, duration: duration),
      nioRow(
        "vsAsyncHTTPClient", minRatio: 0.9, shared: shared,
        peer: { try await rawAsyncHTTPClientThroughput(shared.start(), duration: duration) }, duration: duration),
      // No target: Keel's transport uses AsyncHTTPClient's delegate form, which hands a response over once instead
      // of a head and then each body part, and this peer does too, so the ratio is the cost of Keel's layers alone.
      nioRow(
        "vsAsyncHTTPClientDelegate", minRatio: nil, shared: shared,
        peer: { try await rawDelegateThroughput(shared.start(), duration: duration) }, duration: duration),
      Comparison(
        name: "networking.interceptorChain.overhead", unit: "µs/req", better: .lower, target: nil,
        keel: { try await keelOverhead(requests: requests) },
        peer: { try await peerOverhead(requests: requests) }),
    ]
  }

  /// `networking.throughput.getUser.nio.<versus>`: Keel's full stack on the NIO transport against `peer`.
  private static func nioRow(
    _ versus: String, minRatio: Double?, shared: SandboxSessions,
    peer: @escaping @Sendable () async throws -> Double, duration: Duration
  ) -> Comparison {
    Comparison(
      name: "networking.throughput.getUser.nio.\(versus)", unit: "req/s", better: .higher, target: nil,
      minRatio: minRatio, rounds: (3, 15),
      keel: { try await keelThroughput(shared.start(), nio: true, duration: duration) }, peer: peer,
      finish: { await shared.stop() })
  }

  // MARK: - Throughput

  /// `GET /v3/users/bench-user` through the whole stack: endpoint → `RetryPolicy` and an `Api-Token` interceptor →
  /// `URLSessionTransport` or `NIOHTTPTransport` → status check → JSON decoding.
  private static func keelThroughput(
    _ shared: SandboxSessions.Running, nio: Bool, duration: Duration
  ) async throws -> Double {
    let request = APIRequest<BenchUser>.json(BenchUsersEndpoint.get(baseURL: shared.baseURL, userID: BenchUser.id))
    let client = nio ? shared.keelNIO : shared.keel
    return try await requestsPerSecond(duration: duration) {
      try await client.send(request).check()
    }
  }

  /// The same call written by hand on AsyncHTTPClient's async form, as its README shows an app: an
  /// `HTTPClientRequest` with the token, `execute`, a status check, the body collected and `JSONDecoder`.
  private static func rawAsyncHTTPClientThroughput(
    _ shared: SandboxSessions.Running, duration: Duration
  ) async throws -> Double {
    let url = shared.baseURL.appendingPathComponent("v3/users/\(BenchUser.id)").absoluteString
    return try await requestsPerSecond(duration: duration) {
      var request = HTTPClientRequest(url: url)
      request.headers.add(name: "Api-Token", value: SandboxSessions.token)
      let response = try await shared.peerNIO.execute(request, timeout: .seconds(60))
      guard response.status == .ok else { throw BenchmarkError(description: "peer: not a 200: \(response.status)") }
      let body = try await response.body.collect(upTo: 1 << 20)
      try JSONDecoder().decode(BenchUser.self, from: body).check()
    }
  }

  /// The same call written by hand on AsyncHTTPClient's delegate form, as `NIOHTTPTransport` sends it: an
  /// `HTTPClient.Request` with the token, `execute(request:deadline:)` (whose delegate, AsyncHTTPClient's
  /// `ResponseAccumulator`, collects the body on the event loop), a status check and `JSONDecoder`.
  private static func rawDelegateThroughput(
    _ shared: SandboxSessions.Running, duration: Duration
  ) async throws -> Double {
    let url = shared.baseURL.appendingPathComponent("v3/users/\(BenchUser.id)").absoluteString
    return try await requestsPerSecond(duration: duration) {
      var headers = HTTPHeaders()
      headers.add(name: "Api-Token", value: SandboxSessions.token)
      let request = try AsyncHTTPClient.HTTPClient.Request(url: url, headers: headers)
      let response = try await shared.peerNIO.execute(request: request, deadline: .now() + .seconds(60)).get()
      guard response.status == .ok else { throw BenchmarkError(description: "peer: not a 200: \(response.status)") }
      try JSONDecoder().decode(BenchUser.self, from: response.body ?? ByteBuffer()).check()
    }
  }

  /// keel-bench's raw-socket load generator against the same Sandbox with as many connections as the other rows have
  /// loops: the most this machine serves when the client costs next to nothing.
  private static func loadGeneratorThroughput(
    _ shared: SandboxSessions.Running, duration: Duration
  ) async throws -> Double {
    try await LoopbackLoad.requestsPerSecond(
      port: shared.port, path: "/v3/users/\(BenchUser.id)", headers: ["Api-Token": SandboxSessions.token],
      connections: concurrency, duration: duration)
  }

  /// The same call written by hand, as an app without Keel would: a `URLRequest` with the token,
  /// `URLSession.data(for:)`, a status check and `JSONDecoder`.
  private static func peerThroughput(_ shared: SandboxSessions.Running, duration: Duration) async throws -> Double {
    try await requestsPerSecond(duration: duration) {
      let request = handWrittenRequest(baseURL: shared.baseURL, headers: ["Api-Token": SandboxSessions.token])
      let (data, response) = try await shared.peer.data(for: request)
      guard let status = (response as? HTTPURLResponse)?.statusCode, status == 200 else {
        throw BenchmarkError(description: "peer: not a 200: \(response)")
      }
      try JSONDecoder().decode(BenchUser.self, from: data).check()
    }
  }

  /// Requests per second that ``concurrency`` loops, each sending one request after another, complete in about
  /// `duration`: the count over the time until the last loop has finished its last request. A failed request throws.
  private static func requestsPerSecond(
    duration: Duration, _ send: @escaping @Sendable () async throws -> Void
  ) async throws -> Double {
    let clock = ContinuousClock()
    let cpuStart = processMicroseconds()
    let start = clock.now
    let deadline = start + duration
    let completed = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<concurrency {
        group.addTask {
          var completed = 0
          while clock.now < deadline {
            try await send()
            completed += 1
          }
          return completed
        }
      }
      return try await group.reduce(0, +)
    }
    let cpu = processMicroseconds() - cpuStart
    // KEEL_BENCH_CPU=1 prints the process's CPU time per request of each round (client and Sandbox together: the
    // Sandbox's share is the same on both sides, so the difference is what the client costs).
    if ProcessInfo.processInfo.environment["KEEL_BENCH_CPU"] != nil {
      KeelBench.log("  cpu \(String(format: "%.1f", cpu / Double(completed))) µs/req over \(completed)")
    }
    return Double(completed) / (nanoseconds(start.duration(to: clock.now)) / 1e9)
  }

  // MARK: - Overhead

  /// An in-process base URL: the overhead rows never leave the process.
  private static let offlineBaseURL = URL(string: "http://127.0.0.1:1")!

  /// What an app's chain commonly holds: an auth header, retries, a client-identification header.
  private static let chainHeaders = ["Api-Token": SandboxSessions.token, "X-Client-Version": "keel-bench/1"]

  /// Keel, sequentially, over a transport that answers at once: building the `URLRequest` from the endpoint, a
  /// three-interceptor chain (`Api-Token` header, `RetryPolicy`, client-version header), the request context, the
  /// status check, decoding, and the `APIResponse`; in µs per request.
  ///
  /// The peer is the same request written by hand over the same transport (called through `any HTTPTransport`, as
  /// Keel calls it), so the difference between the two columns is what Keel costs per request above the transport:
  /// the overhead that the network then hides.
  private static func keelOverhead(requests: Int) async throws -> Double {
    let client = HTTPClient(
      transport: FixedResponseTransport.benchUser,
      interceptors: [
        HeaderInterceptor(name: "Api-Token", value: chainHeaders["Api-Token"]!), RetryPolicy(),
        HeaderInterceptor(name: "X-Client-Version", value: chainHeaders["X-Client-Version"]!),
      ])
    let request = APIRequest<BenchUser>.json(BenchUsersEndpoint.get(baseURL: offlineBaseURL, userID: BenchUser.id))
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<requests { try await client.send(request).check() }
    return nanoseconds(start.duration(to: clock.now)) / 1_000 / Double(requests)
  }

  /// The hand-written peer of ``keelOverhead(requests:)``: a `URLRequest` with the same two headers, the transport,
  /// a status check and `JSONDecoder`.
  private static func peerOverhead(requests: Int) async throws -> Double {
    let transport: any HTTPTransport = FixedResponseTransport.benchUser
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<requests {
      let response = try await transport.send(handWrittenRequest(baseURL: offlineBaseURL, headers: chainHeaders))
      guard response.status == 200 else { throw BenchmarkError(description: "peer: not a 200: \(response.status)") }
      try JSONDecoder().decode(BenchUser.self, from: response.body).check()
    }
    return nanoseconds(start.duration(to: clock.now)) / 1_000 / Double(requests)
  }

  /// `GET {baseURL}/v3/users/bench-user` with `headers`, built the way hand-written code builds it.
  private static func handWrittenRequest(baseURL: URL, headers: [String: String]) -> URLRequest {
    var request = URLRequest(url: baseURL.appendingPathComponent("v3/users/\(BenchUser.id)"))
    request.httpMethod = "GET"
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    return request
  }
}
