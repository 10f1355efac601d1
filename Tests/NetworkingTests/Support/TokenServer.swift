import Foundation
import KeelConcurrency
import Networking
import TestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A fake API for token-refresh tests: it accepts only the current access token (`Bearer t<version>`, starting at `t1`) and answers
/// anything else with the chat backend's `E05`. `hold()` keeps answers (to every path, or one) until `release()`.
final class TokenServer: HTTPTransport {
  private struct State {
    var version = 1
    var refusesAll = false
    var heldPath: String?
    var answered: [(path: String, authorization: String?, status: Int)] = []
  }
  private let state = Locked(State())
  private let gate = Gate()

  /// The access token the server accepts now.
  var currentToken: String { state.withLock { "t\($0.version)" } }

  /// Makes every issued token stale; the next refresh issues `t<version + 1>`.
  func expireTokens() { state.withLock { $0.version += 1 } }

  /// Makes the server refuse every token, fresh ones included (a broken server, for the loop guard).
  func refuseAll() { state.withLock { $0.refusesAll = true } }

  /// Issues the token the server accepts now, as a refresh does.
  func issue() -> String { currentToken }

  /// Holds the answers to every request, or to requests for `path`, until ``release()``.
  func hold(path: String? = nil) {
    state.withLock { $0.heldPath = path }
    gate.close()
  }

  /// How many requests are being held.
  var heldCount: Int { gate.waitingCount }

  /// Answers every held request.
  func release() { gate.open() }

  /// Every answer so far: path, the Authorization header sent, and the status.
  var answered: [(path: String, authorization: String?, status: Int)] { state.withLock { $0.answered } }

  /// How many requests were answered with `status`.
  func count(status: Int) -> Int { answered.filter { $0.status == status }.count }

  func send(_ request: URLRequest) async throws -> RawResponse {
    let path = request.url?.path ?? ""
    if state.withLock({ $0.heldPath.map { $0 == path } ?? true }) { await gate.pass() }
    let authorization = request.value(forHTTPHeaderField: "Authorization")
    let accepted = authorization == "Bearer \(currentToken)" && !state.withLock { $0.refusesAll }
    let status = accepted ? 200 : 401
    state.withLock { $0.answered.append((path, authorization, status)) }
    return accepted
      ? RawResponse(status: 200, body: Data(#"{"ok":true}"#.utf8))
      : RawResponse(status: 401, body: Data(#"{"errorCode":"E05","message":"Access token expired."}"#.utf8))
  }
}

/// A credential for the tests: an access token and whether it should be refreshed before use.
struct TestCredential: Sendable, Equatable {
  var access: String
  var expiresSoon = false
}

/// An authenticator over ``TokenServer``: a refresh asks the server for its current token, after an optional gate,
/// or fails with a scripted error.
final class TestAuthenticator: Authenticator {
  private struct State {
    var refreshes = 0
    var failure: (any Error)?
  }
  private let server: TokenServer
  private let state = Locked(State())
  private let gate = Gate()

  init(server: TokenServer) { self.server = server }

  /// How many refreshes started.
  var refreshes: Int { state.withLock { $0.refreshes } }

  /// Makes refreshes wait for ``openGate()``.
  func closeGate() { gate.close() }

  /// Lets waiting and later refreshes finish.
  func openGate() { gate.open() }

  /// Makes refreshes throw `error` (`nil` to succeed again).
  func failRefreshes(with error: (any Error)?) { state.withLock { $0.failure = error } }

  func apply(_ credential: TestCredential, to request: inout URLRequest) {
    request.setValue("Bearer \(credential.access)", forHTTPHeaderField: "Authorization")
  }

  func refresh(_ credential: TestCredential) async throws -> TestCredential {
    state.withLock { $0.refreshes += 1 }
    await gate.pass()
    if let failure = state.withLock({ $0.failure }) { throw failure }
    return TestCredential(access: server.issue())
  }

  func isAuthenticationFailure(_ failure: NetworkError) -> Bool { failure.serverError?.code == "E05" }

  func isRequest(_ request: URLRequest, authenticatedWith credential: TestCredential) -> Bool {
    request.value(forHTTPHeaderField: "Authorization") == "Bearer \(credential.access)"
  }

  func requiresRefresh(_ credential: TestCredential) -> Bool { credential.expiresSoon }

  func requiresCredential(_ endpoint: any Endpoint) -> Bool {
    (endpoint as? TestRouter).map { if case .create = $0 { false } else { true } } ?? true
  }
}

extension ServerErrorDecoder where Self == JSONServerErrorDecoder {
  /// The token server's error shape, `{"errorCode":"E05","message":"…"}`.
  static var errorCode: JSONServerErrorDecoder { JSONServerErrorDecoder(codeField: "errorCode") }
}
