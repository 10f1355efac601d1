import Clocks
import Foundation
import Networking
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// REQUIREMENTS A4, A5: one refresh however many requests fail, retries with the new credential, the loop guard and
/// the end of the session reported once.
@Suite("TokenRefreshInterceptor", .timeLimit(.minutes(3)))
struct TokenRefreshInterceptorTests {
  let clock = TestClock()
  let server = TokenServer()
  let authenticator: TestAuthenticator
  let expirations = Recorder<NetworkError>()

  init() { authenticator = TestAuthenticator(server: server) }

  private func session(_ credential: TestCredential? = TestCredential(access: "t0"))
    -> TokenRefreshInterceptor<TestAuthenticator>
  {
    TokenRefreshInterceptor(authenticator: authenticator, credential: credential, clock: clock) {
      [expirations] in expirations.record($0)
    }
  }

  private func client(_ session: TokenRefreshInterceptor<TestAuthenticator>) -> HTTPClient {
    HTTPClient(transport: server, interceptors: [session], serverErrorDecoders: [.errorCode], clock: clock)
  }

  private func get(_ client: HTTPClient, _ id: String = "me") async throws -> APIResponse<Data> {
    try await client.response(for: .data(TestRouter.user(id: id)))
  }

  @Test("An expired token is refreshed and the request sent again with the new one (A4)")
  func refreshesAndRetries() async throws {
    let session = session()
    let response = try await get(client(session))
    #expect(response.attempts == 2)
    #expect(authenticator.refreshes == 1)
    #expect(server.answered.map(\.authorization) == ["Bearer t0", "Bearer t1"])
    #expect(session.credential == TestCredential(access: "t1"))
  }

  @Test("50 requests failing together cause exactly one refresh, and all 50 succeed (A5)")
  func oneRefreshForMany() async throws {
    let client = client(session())
    try await withThrowingTaskGroup(of: Int.self) { group in
      for index in 0..<50 { group.addTask { try await get(client, "u\(index)").status } }
      for try await status in group { #expect(status == 200) }
    }
    #expect(authenticator.refreshes == 1)
  }

  @Test("Requests that fail while the refresh is in flight wait for it instead of starting another")
  func waitersJoinTheRefresh() async throws {
    let client = client(session())
    authenticator.closeGate()
    server.hold()
    let probes = (0..<10).map { index in TaskProbe { try await get(client, "u\(index)").status } }
    #expect(await eventually { server.heldCount == 10 })
    server.release()
    // The server counts a 401 when it answers; the refresh starts a moment later, when the client has read it.
    #expect(await eventually { server.count(status: 401) == 10 && authenticator.refreshes == 1 })
    await settle()
    #expect(probes.allSatisfy { !$0.isFinished }, "all wait for the one refresh")
    authenticator.openGate()
    for probe in probes { #expect(await probe.value() == 200) }
    #expect(authenticator.refreshes == 1)
  }

  @Test("A request that carried an older credential is sent again with the new one, without another refresh")
  func staleCredentialRetriesWithoutRefresh() async throws {
    let client = client(session())
    server.hold(path: "/base/v3/users/slow")
    let slow = TaskProbe { try await get(client, "slow") }
    #expect(await eventually { server.heldCount == 1 })
    _ = try await get(client, "fast")  // refreshes t0 → t1
    #expect(authenticator.refreshes == 1)
    server.release()  // the slow request's t0 is refused now
    let response = try #require(await slow.value())
    #expect(response.attempts == 2)
    #expect(authenticator.refreshes == 1, "t0 was already replaced: no second refresh")
  }

  @Test("A credential that says it expires soon is refreshed before it is used")
  func refreshesAheadOfExpiry() async throws {
    _ = try await get(client(session(TestCredential(access: "t0", expiresSoon: true))))
    #expect(authenticator.refreshes == 1)
    #expect(server.answered.map(\.authorization) == ["Bearer t1"], "no request went out with the old token")
  }

  @Test("A failed refresh fails every waiting request with session expired, reports it once and clears the tokens")
  func failedRefreshEndsTheSession() async throws {
    let session = session()
    let client = client(session)
    authenticator.closeGate()
    authenticator.failRefreshes(with: NetworkError.sessionEnded)
    server.hold()
    let probes = (0..<10).map { index in TaskProbe { try await get(client, "u\(index)") } }
    #expect(await eventually { server.heldCount == 10 })
    server.release()
    #expect(await eventually { server.count(status: 401) == 10 })
    authenticator.openGate()
    for probe in probes { #expect((await probe.error() as? NetworkError)?.kind == .sessionExpired) }
    #expect(authenticator.refreshes == 1)
    #expect(expirations.count == 1, "reported once")
    #expect(session.credential == nil)

    let sent = server.answered.count
    let later = await #expect(throws: NetworkError.self) { try await get(client) }
    #expect(later?.kind == .sessionExpired)
    #expect(server.answered.count == sent, "nothing is sent without a credential")
    #expect(expirations.count == 1)

    session.setCredential(TestCredential(access: server.currentToken))
    #expect(try await get(client).status == 200, "signing in again starts a new session")
  }

  @Test("A passing refresh failure fails the waiting requests with it, keeps the credential and reports nothing")
  func passingRefreshFailureKeepsTheSession() async throws {
    let session = session()
    let client = client(session)
    var offline = NetworkError.offline
    offline.urlError = URLError(.notConnectedToInternet)
    authenticator.failRefreshes(with: offline)
    let error = await #expect(throws: NetworkError.self) { try await get(client) }
    #expect(error?.kind == .transport)
    #expect(expirations.count == 0)
    #expect(session.credential == TestCredential(access: "t0"))

    authenticator.failRefreshes(with: nil)
    #expect(try await get(client).status == 200, "the next request refreshes again")
    #expect(authenticator.refreshes == 2)
  }

  @Test("Refreshes that fail in passing (offline, URLError) neither trip the loop guard nor end the session")
  func passingFailuresDoNotTripTheGuard() async throws {
    let session = session()
    let client = client(session)
    authenticator.failRefreshes(with: URLError(.notConnectedToInternet))
    for index in 0..<8 {
      let error = await #expect(throws: NetworkError.self) { try await get(client, "u\(index)") }
      #expect(error?.kind == .transport)
      #expect(error?.urlError?.code == .notConnectedToInternet)
    }
    #expect(expirations.count == 0)
    #expect(session.credential == TestCredential(access: "t0"))
  }

  @Test("Signing in answers requests waiting for an obsolete refresh at once, with the new credential")
  func signInOvertakesARefresh() async throws {
    let session = session()
    let client = client(session)
    authenticator.closeGate()
    let first = TaskProbe { try await get(client, "a").status }
    #expect(await eventually { authenticator.refreshes == 1 })
    session.setCredential(TestCredential(access: server.currentToken))
    #expect(await first.value() == 200, "the waiter went on with the signed-in credential")
    #expect(try await get(client, "b").status == 200, "a later request does not wait for the old refresh")
    authenticator.openGate()
    await settle()
    #expect(session.credential == TestCredential(access: "t1"))
  }

  @Test("Each interceptor counts its own retries: two 503 retries leave the refresh its retry")
  func ownRetries() async throws {
    let transport = FakeTransport(
      FakeTransport.json(503, "{}"), FakeTransport.json(503, "{}"),
      FakeTransport.json(401, #"{"errorCode":"E05","message":"Access token expired."}"#),
      FakeTransport.json(200, "{}"))
    let client = HTTPClient(
      transport: transport, interceptors: [session(), RetryPolicy(baseDelay: .zero)],
      serverErrorDecoders: [.errorCode], clock: clock)
    let response = try await get(client)
    #expect(response.attempts == 4)
    #expect(authenticator.refreshes == 1)
  }

  @Test("A request is sent at most 3 times when the server keeps refusing fresh credentials")
  func atMostThreeAttempts() async throws {
    server.refuseAll()
    let error = await #expect(throws: NetworkError.self) { try await get(client(session())) }
    #expect(error?.serverError?.code == "E05")
    #expect(server.answered.count == 3)
    #expect(authenticator.refreshes == 2)
  }

  @Test("Loop guard: a sixth refresh within 30 s ends the session; after the window, refreshes are allowed again")
  func loopGuard() async throws {
    let session = session()
    let client = client(session)
    for _ in 0..<5 {  // at 0, 1, 2, 3 and 4 s
      server.expireTokens()
      _ = try await get(client)
      await clock.advance(by: .seconds(1))
    }
    #expect(authenticator.refreshes == 5)
    await clock.advance(by: .seconds(25))  // 30 s: the refresh at 0 s leaves the window
    server.expireTokens()
    _ = try await get(client)
    #expect(authenticator.refreshes == 6, "the refresh at 0 s left the window")

    server.expireTokens()
    let error = await #expect(throws: NetworkError.self) { try await get(client) }
    #expect(error?.kind == .sessionExpired)
    #expect(authenticator.refreshes == 6, "the guard refused the seventh refresh")
    #expect(expirations.count == 1)
  }

  @Test("Cancelling a waiting request ends its wait at once and leaves the refresh to the others")
  func cancellingAWaiter() async throws {
    let client = client(session())
    authenticator.closeGate()
    server.hold()
    let cancelled = TaskProbe { try await get(client, "a") }
    let kept = TaskProbe { try await get(client, "b") }
    #expect(await eventually { server.heldCount == 2 })
    server.release()
    #expect(await eventually { server.count(status: 401) == 2 && authenticator.refreshes == 1 })
    cancelled.cancel()
    #expect(await cancelled.error() is CancellationError)
    #expect(!kept.isFinished)
    authenticator.openGate()
    #expect(await kept.value()?.status == 200)
    #expect(authenticator.refreshes == 1)
  }

  @Test("Endpoints that need no credential carry none; a 401 that is not an authentication failure is not retried")
  func credentialFreeAndOtherFailures() async throws {
    let client = client(session(nil))
    let error = await #expect(throws: NetworkError.self) { try await get(client) }
    #expect(error?.kind == .sessionExpired, "no credential: refused before sending")
    #expect(server.answered.isEmpty)

    _ = try? await client.send(.data(TestRouter.create(name: "x")))
    #expect(server.answered.map(\.authorization) == [nil], "sign-in routes go without a credential")
    #expect(authenticator.refreshes == 0, "nor are they retried")
  }
}

extension NetworkError {
  /// What a refresh endpoint answers when the refresh token is no longer valid (E06).
  fileprivate static var sessionEnded: NetworkError {
    var error = NetworkError(.server, "The server refused the refresh: E06.")
    error.statusCode = 401
    error.serverError = ServerError(code: "E06", message: "Refresh token expired.", status: 401)
    return error
  }

  fileprivate static var offline: NetworkError { NetworkError(.transport, "The network is offline.") }
}
