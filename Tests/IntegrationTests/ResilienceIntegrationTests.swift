import Clocks
import Foundation
import Logging
import Networking
import Sandbox
import TestSupport
import Testing

/// REQUIREMENTS E4, U8 over real HTTP: rate limits, injected failures and cancellation against the Sandbox.
@Suite("Retries and cancellation against the Sandbox", .timeLimit(.minutes(3)))
struct ResilienceIntegrationTests {
  /// Records the policy's decisions with the delay the server advertised.
  struct Observed: RequestInterceptor {
    let policy: RetryPolicy
    let decisions: Recorder<(decision: RetryDecision, advertised: String?)>

    func retry(after failure: NetworkError, context: RequestContext) async -> RetryDecision {
      let decision = await policy.retry(after: failure, context: context)
      decisions.record((decision, failure.headers?["X-RateLimit-RetryAfter"]))
      return decision
    }
  }

  @Test(
    "A 429 from the Sandbox's rate limit is retried after the advertised delay, and then succeeds",
    arguments: TransportKind.allCases)
  func rateLimitedThenRetried(_ kind: TransportKind) async throws {
    // One clock for the server's rate-limit windows and the client's waits, so the delay is exact and instant.
    let clock = TestClock()
    let sandbox = try await Sandbox.start(SandboxConfiguration(clock: clock, logLevel: .warning))
    let decisions = Recorder<(decision: RetryDecision, advertised: String?)>()
    let client = HTTPClient(
      transport: kind.transport, interceptors: [Observed(policy: RetryPolicy(), decisions: decisions)], clock: clock)
    _ = try await client.send(.data(SandboxUsers.create("u", on: sandbox)))
    for _ in 0..<10 { _ = try await client.send(.data(SandboxUsers.get("u", on: sandbox))) }  // GET: 10 per second

    let eleventh = TaskProbe { try await client.response(for: .data(SandboxUsers.get("u", on: sandbox))) }
    #expect(await clock.sleeperArrived(), "the 11th GET is refused and waits to retry")
    let (decision, advertised) = try #require(decisions.elements.first)
    let seconds = try #require(advertised.flatMap(Double.init))
    guard case .retryAfter(let delay) = decision else { throw Refused(decision: decision) }
    #expect(delay == .milliseconds(Int((seconds * 1_000).rounded(.up))), "waits exactly what the server asked")
    #expect(try await sandboxResponses("GET /v3/users/:user_id", status: 429, on: sandbox) == 1)

    await clock.advance(by: delay - .milliseconds(1))
    await settle()
    #expect(!eleventh.isFinished, "not retried before the advertised delay")
    await clock.advance(by: .milliseconds(1))
    let response = try #require(await eleventh.value())
    #expect(response.status == 200)
    #expect(response.attempts == 2)
    await sandbox.stop()
  }

  struct Refused: Error {
    let decision: RetryDecision
  }

  @Test(
    "With 30% injected 503s, every idempotent request succeeds through retries; POSTs are retried only if allowed",
    arguments: TransportKind.allCases)
  func injectedServerErrors(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(
      SandboxConfiguration(
        rateLimitsEnabled: false, faults: [SandboxFault(route: "*", status: 503, rate: 0.3, seed: 7)],
        logLevel: .warning))
    let fast = RetryPolicy(maxRetries: 8, baseDelay: .milliseconds(1), maxDelay: .milliseconds(10))
    let client = HTTPClient(transport: kind.transport, interceptors: [fast])

    var created = 0
    var refused = 0
    for index in 0..<30 {
      do {
        _ = try await client.send(.data(SandboxUsers.create("p\(index)", on: sandbox)))
        created += 1
      } catch let error as NetworkError where error.statusCode == 503 {
        refused += 1
      }
    }
    #expect(refused > 0, "some POSTs met a 503")
    #expect(created + refused == 30)
    let posts503 = try await sandboxResponses("POST /v3/users", status: 503, on: sandbox)
    #expect(posts503 == refused, "a POST that met a 503 was not sent again")

    let eager = HTTPClient(
      transport: kind.transport,
      interceptors: [RetryPolicy(maxRetries: 8, baseDelay: .milliseconds(1), retriesNonIdempotent: true)])
    for index in 0..<30 {
      _ = try await eager.send(.data(SandboxUsers.create("q\(index)", on: sandbox)))
    }
    #expect(try await sandboxResponses("POST /v3/users", status: 503, on: sandbox) > posts503, "allowed: retried")

    var gets = 0
    for index in 0..<30 {
      _ = try await client.send(.data(SandboxUsers.get("q\(index)", on: sandbox)))
      gets += 1
    }
    #expect(gets == 30)
    #expect(try await sandboxResponses("GET /v3/users/:user_id", status: 503, on: sandbox) > 0, "GETs met 503s too")
    await sandbox.stop()
  }

  @Test(
    "A slow server (≥ 2 s) with the calling task cancelled after 100 ms ends promptly as cancelled",
    arguments: TransportKind.allCases)
  func cancellation(_ kind: TransportKind) async throws {
    // A minute rather than 2 s: under TSan on a loaded 2-core machine the stats request below has come
    // more than 2 s, and once (on the NIO transport, with the suite running twice as many cases) more than 10 s,
    // after the cancellation, and saw the server's late answer. The claim is the same, with margin.
    let sandbox = try await Sandbox.start(
      SandboxConfiguration(faults: [SandboxFault(route: "/v1/me", latency: .seconds(60))], logLevel: .warning))
    let client = HTTPClient(transport: kind.transport)
    let slow = Task { try await client.send(.data(SandboxRoute.me(on: sandbox))) }
    try await Task.sleep(for: .milliseconds(100))
    slow.cancel()
    // Awaited directly: if cancellation did not reach the transfer, the server's 401 arrives after a minute and fails
    // this.
    await #expect(throws: CancellationError.self) { try await slow.value }
    // Promptly: the call ended before the server even answered (its answer is counted when sent).
    #expect(try await sandboxResponses("GET /v1/me", status: 401, on: sandbox) == 0)
    await sandbox.stop()
  }
}
