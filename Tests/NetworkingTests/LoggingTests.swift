import Foundation
import Logging
import Networking
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// REQUIREMENTS U11: one line per request and response at debug, retries at info, failures at warning; no secret in
/// any of them.
@Suite("Request logging", .timeLimit(.minutes(3)))
struct LoggingTests {
  /// Every secret value is unique, so that its absence from the logs means something.
  struct SignIn: Endpoint {
    var baseURL: URL { URL(string: "https://api.example.com")! }
    var path: EndpointPath { "/v1/auth/login" }
    var method: HTTPMethod { .post }
    var headers: [String: String] {
      ["Api-Token": "SECRET-api", "Authorization": "Bearer SECRET-bearer", "Cookie": "sid=SECRET-cookie"]
    }
    var query: [QueryItem] { [QueryItem("access_token", "SECRET-query"), QueryItem("lang", "en")] }
    var body: HTTPBody {
      .data(
        Data(#"{"email":"a@b.c","password":"SECRET-password","nested":{"refreshToken":"SECRET-nested"}}"#.utf8),
        contentType: "application/json")
    }
  }

  let capture = LogCapture()

  private static let signedIn = FakeTransport.json(
    200, #"{"accessToken":"SECRET-access","refresh_token": "SECRET-refresh","expiresIn":60,"user":{"id":"u1"}}"#,
    headers: ["Set-Cookie": "sid=SECRET-set-cookie", "RefreshToken": "SECRET-header"])

  @Test("Requests and responses are logged at debug with secret headers, query items and fields masked")
  func redactsSecrets() async throws {
    let client = HTTPClient(transport: FakeTransport(Self.signedIn), logger: capture.logger())
    _ = try await client.send(.data(SignIn()))

    let debug = capture.messages(at: .debug)
    #expect(debug.count == 2)
    let request = try #require(debug.first)
    #expect(request.hasPrefix("→ POST https://api.example.com/v1/auth/login?access_token=***&lang=en"))
    #expect(request.contains("Api-Token: ***") && request.contains("Authorization: ***"))
    #expect(request.contains(#""email":"a@b.c""#), "what is not secret stays readable")
    #expect(request.contains(#""password":"***""#) && request.contains(#""refreshToken":"***""#))
    let response = try #require(debug.last)
    #expect(response.hasPrefix("← 200 POST"))
    #expect(response.contains(#""accessToken":"***""#) && response.contains(#""refresh_token": "***""#))
    #expect(response.contains("Set-Cookie: ***"))
    #expect(!capture.text.contains("SECRET"), "no secret in: \(capture.text)")
  }

  @Test("Bodies are truncated to the redaction's limit, with the full size shown")
  func truncatesBodies() async throws {
    let big = "{\"items\":[" + Array(repeating: "\"x\"", count: 2_000).joined(separator: ",") + "]}"
    let client = HTTPClient(transport: FakeTransport(FakeTransport.json(200, big)), logger: capture.logger())
    _ = try await client.send(.data(TestRouter.user(id: "a")))
    let response = try #require(capture.messages(at: .debug).last)
    #expect(response.contains("… (\(big.utf8.count) bytes)"))
    #expect(response.utf8.count < 1_500)
  }

  @Test("A token field cut off by truncation is still masked")
  func truncatedSecret() {
    let redaction = LogRedaction(headers: [], fieldFragments: ["token"], bodyLimit: 24)
    let body = Data(#"{"id":1,"token":"SECRET-truncated-value"}"#.utf8)
    #expect(redaction.render(body: body) == #"{"id":1,"token":"***" … (41 bytes)"#)
    let standard = LogRedaction.standard
    #expect(standard.render(body: Data("grant=refresh&refresh_token=SECRET".utf8)) == "grant=refresh&refresh_token=***")
    #expect(standard.render(body: Data(#"{"token": 12345, "n": 1}"#.utf8)) == #"{"token": ***, "n": 1}"#)
  }

  @Test("A secret field's whole value is masked, an object or an array too, even when cut off")
  func compositeSecrets() {
    let standard = LogRedaction.standard
    let body = #"{"tokens":{"access":"SECRET-a","refresh":"SECRET-r"},"api_keys":["SECRET-k"],"n":{"a":[1]}}"#
    #expect(standard.render(body: Data(body.utf8)) == #"{"tokens":***,"api_keys":***,"n":{"a":[1]}}"#)
    let cut = LogRedaction(headers: [], fieldFragments: ["token"], bodyLimit: 30)
    #expect(!cut.render(body: Data(body.utf8)).contains("SECRET"))
  }

  @Test("Names added after creation are compared ignoring case, like the standard ones")
  func addedNames() {
    var redaction = LogRedaction.standard
    redaction.headers.insert("X-Session")
    redaction.fieldFragments.append("Session")
    #expect(redaction.render(headers: ["x-session": "SECRET-h"]) == "x-session: ***")
    #expect(!redaction.render(body: Data(#"{"sessionKey":"SECRET-f"}"#.utf8)).contains("SECRET"))
  }

  @Test("A URL's password is masked, the user name kept; a Sandbox-Key header is masked")
  func userInfoAndSandboxKey() throws {
    let standard = LogRedaction.standard
    let url = try #require(URL(string: "http://bob:pw-s3cret@127.0.0.1:8080/v3/users?token=abc&limit=2"))
    let rendered = standard.render(url: url)
    #expect(rendered == "http://bob:***@127.0.0.1:8080/v3/users?token=***&limit=2", "\(rendered)")
    #expect(standard.render(url: URL(string: "http://bob@example.com/x")) == "http://bob@example.com/x")
    #expect(standard.render(headers: ["Sandbox-Key": "k3y"]) == "Sandbox-Key: ***")
  }

  @Test("Retries are logged at info, the final failure at warning, a cancellation at neither")
  func levels() async throws {
    let transport = FakeTransport(FakeTransport.json(503, "{}"), FakeTransport.json(503, "{}"))
    let client = HTTPClient(
      transport: transport, interceptors: [RetryPolicy(maxRetries: 1, baseDelay: .zero)], logger: capture.logger())
    _ = try? await client.send(.data(TestRouter.user(id: "a")))
    #expect(capture.messages(at: .info).count == 1)
    #expect(capture.messages(at: .info).first?.hasPrefix("Retrying GET /v3/users/a now (attempt 2)") == true)
    #expect(capture.messages(at: .warning).count == 1)
    #expect(capture.messages(at: .warning).first?.contains("HTTP 503") == true)

    let cancelled = LogCapture()
    let blocked = HTTPClient(
      transport: FakeTransport { _ in throw CancellationError() }, logger: cancelled.logger())
    _ = try? await blocked.send(.data(TestRouter.user(id: "a")))
    #expect(cancelled.messages(at: .warning).isEmpty)
  }

  @Test("A decoding error's body excerpt has its secrets masked too: it reaches logs and screens")
  func decodingExcerpt() async throws {
    struct Tokens: Decodable { let accessToken: Int }
    let client = HTTPClient(transport: FakeTransport(Self.signedIn), logger: capture.logger(level: .warning))
    let error = await #expect(throws: NetworkError.self) {
      try await client.send(.json(SignIn()) as APIRequest<Tokens>)
    }
    #expect(error?.kind == .decoding)
    #expect(error?.description.contains("SECRET") == false)
    #expect(!capture.text.contains("SECRET"))
  }
}
