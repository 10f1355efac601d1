import Domain
import Foundation
import Logging
import Networking
import Sandbox
import TestSupport
import Testing

/// REQUIREMENTS A4, A5 over real HTTP: the refresh interceptor against the Sandbox's auth backend.
@Suite("Token refresh against the Sandbox", .timeLimit(.minutes(3)))
struct TokenRefreshIntegrationTests {
  @Test(
    "50 concurrent /v1/me with an expired access token: all 50 succeed and the Sandbox saw exactly 1 refresh",
    arguments: TransportKind.allCases)
  func fiftyRequestsOneRefresh(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let session = TokenRefreshInterceptor(
      authenticator: SandboxAuthenticator(baseURL: sandbox.baseURL, transport: kind.transport),
      credential: try await signIn(sandbox, over: kind.transport))
    let client = HTTPClient(transport: kind.transport, interceptors: [session], serverErrorDecoders: [.chatBackend])
    _ = try await HTTPClient().send(.data(SandboxRoute.expireTokens(on: sandbox)))

    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<50 { group.addTask { try await client.response(for: .data(SandboxRoute.me(on: sandbox))).status } }
      return try await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(statuses == Array(repeating: 200, count: 50))
    #expect(try await sandboxCounter("refreshes", on: sandbox) == 1)
    #expect(try await sandboxResponses("GET /v1/me", status: 401, on: sandbox) >= 1, "the token really had expired")
    await sandbox.stop()
  }

  @Test(
    "Refresh token revoked (E06): every waiting request fails with session expired, reported once, 1 refresh",
    arguments: TransportKind.allCases)
  func revokedRefreshToken(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let tokens = try await signIn(sandbox, over: kind.transport)
    let expirations = Recorder<NetworkError>()
    let session = TokenRefreshInterceptor(
      authenticator: SandboxAuthenticator(baseURL: sandbox.baseURL, transport: kind.transport), credential: tokens
    ) { expirations.record($0) }
    let client = HTTPClient(transport: kind.transport, interceptors: [session], serverErrorDecoders: [.chatBackend])
    _ = try await HTTPClient().send(.data(SandboxRoute.logout(tokens, on: sandbox)))  // revokes the refresh token
    _ = try await HTTPClient().send(.data(SandboxRoute.expireTokens(on: sandbox)))

    let kinds = await failuresOfConcurrentCalls(20) { try await client.send(.data(SandboxRoute.me(on: sandbox))) }
      .map { ($0 as? NetworkError)?.kind }
    #expect(kinds == Array(repeating: .sessionExpired, count: 20))
    #expect(expirations.count == 1)
    #expect(expirations.elements.first?.description.contains("E06") == true)
    #expect(session.credential == nil, "the tokens are cleared")
    #expect(try await sandboxCounter("refreshes", on: sandbox) == 1, "one refresh attempt, not one per request")
    await sandbox.stop()
  }
}
