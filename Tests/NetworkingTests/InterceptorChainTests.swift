import Foundation
import Networking
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// How interceptors compose: every one adapts, in order, before each attempt; the first that does not answer
/// `doNotRetry` decides after a failure.
@Suite("Interceptor chain", .timeLimit(.minutes(3)))
struct InterceptorChainTests {
  /// Records its adapts, appends its name to the `X-Chain` header, and answers `retry` with a fixed decision.
  struct Step: RequestInterceptor {
    let name: String
    var decision: RetryDecision = .doNotRetry
    var failure: (any Error & Sendable)?
    let log: Recorder<String>

    func adapt(_ request: inout URLRequest, context: RequestContext) async throws {
      log.record("\(name).adapt#\(context.attempt)")
      if let failure { throw failure }
      let chain = request.value(forHTTPHeaderField: "X-Chain").map { $0 + "," } ?? ""
      request.setValue(chain + name, forHTTPHeaderField: "X-Chain")
    }

    func retry(after failure: NetworkError, context: RequestContext) async -> RetryDecision {
      log.record("\(name).retry#\(context.attempt)")
      return decision
    }
  }

  let log = Recorder<String>()

  @Test("Every interceptor adapts in order before each attempt; the first that does not decline decides")
  func orderAndDecision() async throws {
    let transport = FakeTransport(FakeTransport.json(503, "{}"), FakeTransport.json(200, "{}"))
    let client = HTTPClient(
      transport: transport,
      interceptors: [
        Step(name: "a", log: log), Step(name: "b", decision: .retry, log: log),
        Step(name: "c", decision: .fail(NetworkError(.invalidRequest, "never asked")), log: log),
      ])
    let response = try await client.response(for: .empty(TestRouter.user(id: "x")))
    #expect(response.attempts == 2)
    #expect(
      log.elements == [
        "a.adapt#1", "b.adapt#1", "c.adapt#1", "a.retry#1", "b.retry#1",
        "a.adapt#2", "b.adapt#2", "c.adapt#2",
      ])
    #expect(transport.requests.map { $0.value(forHTTPHeaderField: "X-Chain") } == ["a,b,c", "a,b,c"])
  }

  @Test("`fail` replaces the error; nobody retrying lets the original through")
  func failAndDecline() async throws {
    let replacement = NetworkError(.sessionExpired, "Replaced.")
    let client = HTTPClient(
      transport: FakeTransport(FakeTransport.json(401, "{}"), FakeTransport.json(401, "{}")),
      interceptors: [Step(name: "a", decision: .fail(replacement), log: log)])
    let replaced = await #expect(throws: NetworkError.self) { try await client.send(.empty(TestRouter.user(id: "x"))) }
    #expect(replaced?.kind == .sessionExpired)

    let declining = HTTPClient(
      transport: FakeTransport(FakeTransport.json(401, "{}")), interceptors: [Step(name: "a", log: log)])
    let original = await #expect(throws: NetworkError.self) {
      try await declining.send(.empty(TestRouter.user(id: "x")))
    }
    #expect(original?.statusCode == 401)
  }

  @Test("An adapt that throws fails the request unsent: its NetworkError or cancellation as is, anything else invalid")
  func adaptFailures() async throws {
    struct Refusal: Error {}
    for (failure, kind) in [
      (NetworkError(.rateLimited, "No.") as any Error & Sendable, NetworkError.Kind?.some(.rateLimited)),
      (CancellationError(), nil), (Refusal(), .invalidRequest),
    ] {
      let transport = FakeTransport()
      let client = HTTPClient(
        transport: transport,
        interceptors: [Step(name: "a", failure: failure, log: log), Step(name: "b", log: log)])
      if let kind {
        let error = await #expect(throws: NetworkError.self) { try await client.send(.empty(TestRouter.user(id: "x"))) }
        #expect(error?.kind == kind)
      } else {
        await #expect(throws: CancellationError.self) { try await client.send(.empty(TestRouter.user(id: "x"))) }
      }
      #expect(transport.requests.isEmpty)
    }
    #expect(!log.elements.contains("b.adapt#1"), "the chain stops at the first refusal")
  }

  @Test("However the interceptors decide, a request gets at most HTTPClient.maxAttempts attempts")
  func attemptCap() async throws {
    let answers = Array(repeating: FakeTransport.json(503, "{}"), count: HTTPClient.maxAttempts)
    let transport = FakeTransport(answers)
    let client = HTTPClient(transport: transport, interceptors: [Step(name: "a", decision: .retry, log: log)])
    let error = await #expect(throws: NetworkError.self) { try await client.send(.empty(TestRouter.user(id: "x"))) }
    #expect(error?.statusCode == 503)
    #expect(transport.requests.count == HTTPClient.maxAttempts)
  }
}
