import Clocks
import Foundation
import Networking
import RateLimiting
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// REQUIREMENTS U8 through Networking: every attempt is admitted by a limiter, and a refusal sends nothing.
@Suite("RateLimitInterceptor", .timeLimit(.minutes(3)))
struct RateLimitInterceptorTests {
  let clock = TestClock()

  @Test("Requests wait for the limiter: the second of two at one per second is sent a second later")
  func waitsForAPermit() async throws {
    let transport = FakeTransport(FakeTransport.json(200, "{}"), FakeTransport.json(200, "{}"))
    let limiter = TokenBucket(rate: .perSecond(1), burst: 1, clock: clock)
    let client = HTTPClient(transport: transport, interceptors: [RateLimitInterceptor(limiter)], clock: clock)

    _ = try await client.send(.empty(TestRouter.user(id: "a")))
    let second = TaskProbe { try await client.send(.empty(TestRouter.user(id: "b"))) }
    #expect(await clock.sleeperArrived())
    #expect(transport.requests.count == 1, "the second request waits for its permit")
    await clock.advance(by: .seconds(1))
    #expect(await second.value() != nil)
    #expect(transport.requests.count == 2)
  }

  @Test("A full waiting queue fails the request as rate limited, before anything is sent (U8)")
  func fullQueueRefusesBeforeSending() async throws {
    let transport = FakeTransport(FakeTransport.json(200, "{}"))
    let limiter = TokenBucket(rate: .perSecond(1), burst: 1, maxQueued: 1, clock: clock)
    let client = HTTPClient(transport: transport, interceptors: [RateLimitInterceptor(limiter)], clock: clock)

    _ = try await client.send(.empty(TestRouter.user(id: "a")))
    let waiting = TaskProbe { try await client.send(.empty(TestRouter.user(id: "b"))) }
    #expect(await clock.sleeperArrived())
    let refused = await #expect(throws: NetworkError.self) {
      try await client.send(.empty(TestRouter.user(id: "c")))
    }
    #expect(refused?.kind == .rateLimited)
    #expect((refused?.underlying as? RateLimitError)?.kind == .queueFull)
    #expect(transport.requests.map(\.url?.lastPathComponent) == ["a"], "the refused request was never sent")
    waiting.cancel()
    #expect(await waiting.error() is CancellationError, "a cancelled wait is a cancellation")
  }

  @Test("A wait that would pass the request's deadline is refused at once")
  func deadlineBoundsTheWait() async throws {
    let transport = FakeTransport(FakeTransport.json(200, "{}"))
    let limiter = TokenBucket(rate: .perSecond(1), burst: 1, clock: clock)
    let client = HTTPClient(transport: transport, interceptors: [RateLimitInterceptor(limiter)], clock: clock)
    _ = try await client.send(.empty(TestRouter.user(id: "a")))

    var request = APIRequest<EmptyResponse>.empty(TestRouter.user(id: "b"))
    request.deadline = .milliseconds(500)
    let refused = await #expect(throws: NetworkError.self) { try await client.send(request) }
    #expect(refused?.kind == .rateLimited)
    #expect((refused?.underlying as? RateLimitError)?.kind == .deadlineExceeded)
  }

  @Test("The key's wait and the global wait together stay within the deadline")
  func deadlineSpansBothLimiters() async throws {
    let transport = FakeTransport(FakeTransport.json(200, "{}"))
    let limits = KeyedRateLimiter<String>(global: TokenBucket(rate: Rate(1, per: .seconds(2)), burst: 1, clock: clock))
    {
      _ in TokenBucket(rate: .perSecond(1), burst: 1, clock: clock)
    }
    let client = HTTPClient(transport: transport, interceptors: [RateLimitInterceptor(limits)], clock: clock)
    _ = try await client.send(.empty(TestRouter.user(id: "a")))

    var request = APIRequest<EmptyResponse>.empty(TestRouter.user(id: "a"))
    request.deadline = .milliseconds(1_500)  // the key admits at 1 s, the global limiter only at 2 s
    let late = TaskProbe { [request] in try await client.send(request) }
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(1))
    let error = try #require(await late.error() as? NetworkError)
    #expect(error.kind == .rateLimited)
    #expect(transport.requests.count == 1, "not sent past its deadline")
  }

  @Test("Per-endpoint keys: a busy route does not hold up another; the global limiter holds up both")
  func perEndpointKeys() async throws {
    let transport = FakeTransport(FakeTransport.json(200, "{}"), FakeTransport.json(200, "{}"))
    let limits = KeyedRateLimiter<String> { _ in TokenBucket(rate: .perSecond(1), burst: 1, clock: clock) }
    let byMethod = RateLimitInterceptor(limits) { "\($0.method)" }
    let client = HTTPClient(transport: transport, interceptors: [byMethod], clock: clock)

    _ = try await client.send(.empty(TestRouter.user(id: "a")))  // GET
    _ = try await client.send(.empty(TestRouter.create(name: "b")))  // POST: its own key, sent at once
    #expect(transport.requests.count == 2)
    #expect(limits.keyCount == 2)

    let global = KeyedRateLimiter<String>(global: TokenBucket(rate: .perSecond(1), burst: 1, clock: clock)) { _ in
      TokenBucket(rate: .perSecond(10), burst: 10, clock: clock)
    }
    let shared = FakeTransport(FakeTransport.json(200, "{}"), FakeTransport.json(200, "{}"))
    let limited = HTTPClient(transport: shared, interceptors: [RateLimitInterceptor(global)], clock: clock)
    _ = try await limited.send(.empty(TestRouter.user(id: "a")))
    let other = TaskProbe { try await limited.send(.empty(TestRouter.create(name: "b"))) }
    #expect(await clock.sleeperArrived())
    #expect(shared.requests.count == 1, "the global limit holds the other route")
    await clock.advance(by: .seconds(1))
    #expect(await other.value() != nil)
  }

  @Test("Retries are admitted too: each attempt reaches the server, so each one counts")
  func retriesCount() async throws {
    let transport = FakeTransport(FakeTransport.json(503, "{}"), FakeTransport.json(200, "{}"))
    let limiter = TokenBucket(rate: .perSecond(1), burst: 1, clock: clock)
    let client = HTTPClient(
      transport: transport,
      interceptors: [RateLimitInterceptor(limiter), RetryPolicy(baseDelay: .zero, random: { 0 })],
      clock: clock)
    let probe = TaskProbe { try await client.send(.empty(TestRouter.user(id: "a"))) }
    #expect(await clock.sleeperArrived(), "the retry waits for the limiter")
    #expect(transport.requests.count == 1)
    await clock.advance(by: .seconds(1))
    #expect(await probe.value() != nil)
    #expect(transport.requests.count == 2)
  }
}
