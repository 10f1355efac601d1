import Clocks
import Foundation
import TestSupport
import Testing

@testable import Networking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// REQUIREMENTS E4: backoff with jitter, Retry-After, idempotency, limits and deadlines, on a TestClock.
@Suite("RetryPolicy", .timeLimit(.minutes(3)))
struct RetryPolicyTests {
  let clock = TestClock()
  /// Jitter fixed at one half, so that the waits are exact.
  let policy = RetryPolicy(random: { 0.5 })

  private func client(_ transport: FakeTransport, _ policy: RetryPolicy? = nil) -> HTTPClient {
    HTTPClient(transport: transport, interceptors: [policy ?? self.policy], clock: clock)
  }

  /// Sends `request` in the background, and checks it is still waiting just before `wait`, and done at it.
  private func expectRetry<R: Sendable>(
    after wait: Duration, _ send: @escaping @Sendable () async throws -> R
  ) async -> TaskProbe<R> {
    let probe = TaskProbe(send)
    #expect(await clock.sleeperArrived())
    await clock.advance(by: wait - .milliseconds(1))
    await settle()
    #expect(!probe.isFinished, "still waiting 1 ms before \(wait)")
    await clock.advance(by: .milliseconds(1))
    #expect(await probe.finished() != nil)
    return probe
  }

  @Test("A 503 on a GET is retried after the jittered backoff and then succeeds")
  func retriesGet() async {
    let transport = FakeTransport(FakeTransport.json(503, "{}"), FakeTransport.json(200, "{}"))
    let client = client(transport)
    // First retry: base 0.5 s × 2⁰ = 0.5 s, jitter 0.5 → 0.25 s.
    let probe = await expectRetry(after: .milliseconds(250)) {
      try await client.response(for: .data(TestRouter.user(id: "a")))
    }
    #expect(await probe.value()?.attempts == 2)
    #expect(transport.requests.count == 2)
  }

  @Test("POST is not retried unless the policy says so, except after a 429, which the server refused unprocessed")
  func idempotency() async throws {
    let transport = FakeTransport(FakeTransport.json(503, "{}"))
    let error = await #expect(throws: NetworkError.self) {
      try await self.client(transport).send(.empty(TestRouter.create(name: "a")))
    }
    #expect(error?.statusCode == 503)
    #expect(transport.requests.count == 1)

    let eager = FakeTransport(FakeTransport.json(503, "{}"), FakeTransport.json(200, "{}"))
    let client = client(eager, RetryPolicy(retriesNonIdempotent: true, random: { 0.5 }))
    let probe = await expectRetry(after: .milliseconds(250)) {
      try await client.send(.empty(TestRouter.create(name: "a")))
    }
    #expect(await probe.value() != nil)

    let limited = FakeTransport(
      FakeTransport.json(429, "{}", headers: ["Retry-After": "1"]), FakeTransport.json(200, "{}"))
    let refusedUnprocessed = self.client(limited)
    let retried = await expectRetry(after: .seconds(1)) {
      try await refusedUnprocessed.send(.empty(TestRouter.create(name: "a")))
    }
    #expect(await retried.value() != nil)
  }

  @Test("Retry-After and X-RateLimit-RetryAfter are honoured instead of the backoff")
  func retryAfter() async {
    let transport = FakeTransport(
      FakeTransport.json(429, "{}", headers: ["Retry-After": "2"]),
      FakeTransport.json(429, "{}", headers: ["x-ratelimit-retryafter": "0.25"]),
      FakeTransport.json(200, "{}"))
    let client = client(transport)
    let probe = TaskProbe { try await client.response(for: .data(TestRouter.user(id: "a"))) }
    for wait in [Duration.seconds(2), .milliseconds(250)] {
      #expect(await clock.sleeperArrived())
      await clock.advance(by: wait - .milliseconds(1))
      await settle()
      #expect(transport.requests.count < 3)
      await clock.advance(by: .milliseconds(1))
    }
    #expect(await probe.value()?.attempts == 3)
  }

  @Test("A server asking for longer than maxDelay, or for an absurd wait, fails the request at once")
  func excessiveRetryAfter() async throws {
    for asked in ["31", "99999999999999999", "1e300"] {
      let transport = FakeTransport(FakeTransport.json(503, "{}", headers: ["Retry-After": asked]))
      let error = await #expect(throws: NetworkError.self) {
        try await self.client(transport).send(.empty(TestRouter.user(id: "a")))
      }
      #expect(error?.statusCode == 503)
      #expect(error?.headers?["Retry-After"] == asked, "the caller can still read what the server asked")
    }
  }

  @Test("Retry-After as an HTTP date")
  func retryAfterDate() {
    var failure = NetworkError(.status, "429")
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    failure.headers = ["Retry-After": "Fri, 15 Jan 2027 08:00:10 GMT"]
    #expect(RetryAfter.delay(in: failure, now: now) == .seconds(10))
    failure.headers = ["Retry-After": "soon"]
    #expect(RetryAfter.delay(in: failure, now: now) == nil)
  }

  @Test("Backoff doubles per retry, is capped, and full jitter spans [0, bound]")
  func backoffBounds() {
    let low = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .seconds(1), random: { 0 })
    let high = RetryPolicy(baseDelay: .milliseconds(100), maxDelay: .seconds(1), random: { 0.999_999 })
    #expect((1...6).map(low.backoff) == Array(repeating: .zero, count: 6))
    let bounds: [Duration] = [
      .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1),
    ]
    for (retry, bound) in zip(1...6, bounds) {
      let delay = high.backoff(beforeRetry: retry)
      #expect(delay < bound && delay > bound * 0.99, "retry \(retry)")
    }
  }

  @Test("At most maxRetries retries; 4xx and non-transient transport errors are not retried")
  func limits() async throws {
    let transport = FakeTransport(
      { _ in throw URLError(.timedOut) }, FakeTransport.json(503, "{}"), FakeTransport.json(503, "{}"))
    let client = client(transport, RetryPolicy(baseDelay: .zero, random: { 0 }))
    let error = await #expect(throws: NetworkError.self) { try await client.send(.data(TestRouter.user(id: "a"))) }
    #expect(error?.statusCode == 503)
    #expect(transport.requests.count == 3, "one attempt and two retries")

    for answer: FakeTransport.Answer in [FakeTransport.json(400, "{}"), { _ in throw URLError(.badURL) }] {
      let once = FakeTransport(answer)
      await #expect(throws: NetworkError.self) { try await self.client(once).send(.data(TestRouter.user(id: "a"))) }
      #expect(once.requests.count == 1)
    }
  }

  @Test("No retry waits past the request's deadline")
  func deadline() async throws {
    let transport = FakeTransport(FakeTransport.json(503, "{}", headers: ["Retry-After": "5"]))
    var request = APIRequest<Data>.data(TestRouter.user(id: "a"))
    request.deadline = .seconds(3)
    let error = await #expect(throws: NetworkError.self) { try await client(transport).send(request) }
    #expect(error?.statusCode == 503, "fails at once with the server's answer, without waiting 5 s")
    #expect(transport.requests.count == 1)
  }

  @Test("Cancelling the task while it waits to retry ends the call promptly as cancelled")
  func cancelWhileWaiting() async {
    let transport = FakeTransport(FakeTransport.json(503, "{}", headers: ["Retry-After": "20"]))
    let client = client(transport)
    let probe = TaskProbe { try await client.send(.data(TestRouter.user(id: "a"))) }
    #expect(await clock.sleeperArrived())
    probe.cancel()
    #expect(await probe.error() is CancellationError)
    #expect(transport.requests.count == 1)
  }
}
