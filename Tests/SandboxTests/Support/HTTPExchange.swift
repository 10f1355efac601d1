import Foundation
import Logging
import Sandbox
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What came back from one request to a Sandbox, read the way any client of the contract would.
struct HTTPExchange {
  let status: Int
  let headers: [String: String]
  let body: Data

  /// The body as a JSON object; empty when it is not one.
  var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }

  /// The header `name`, case-insensitively.
  func header(_ name: String) -> String? {
    headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
  }

  /// The Platform API error code, if the body is an error.
  var errorCode: Int? { json["error"] as? Bool == true ? json["code"] as? Int : nil }
}

/// Sends requests to one Sandbox over real HTTP on 127.0.0.1, with its own URLSession.
struct SandboxClient {
  let sandbox: RunningSandbox
  var apiToken: String? = "token-a"
  private let session = URLSession(configuration: .ephemeral)

  init(_ sandbox: RunningSandbox, apiToken: String? = "token-a") {
    self.sandbox = sandbox
    self.apiToken = apiToken
  }

  /// Sends `method path` with an optional JSON (or raw) body, giving up after `timeout` seconds without an answer.
  func send(
    _ method: String, _ path: String, json: Any? = nil, raw: Data? = nil, headers: [String: String] = [:],
    timeout: TimeInterval = 60
  ) async throws -> HTTPExchange {
    var request = URLRequest(url: URL(string: sandbox.baseURL.absoluteString + path)!)
    request.httpMethod = method
    request.timeoutInterval = timeout
    if let apiToken { request.setValue(apiToken, forHTTPHeaderField: "Api-Token") }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    if let json {
      request.httpBody = try JSONSerialization.data(withJSONObject: json)
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    } else if let raw {
      request.httpBody = raw
    }
    let (data, response) = try await session.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    let headers = Dictionary(
      http.allHeaderFields.compactMap { key, value in (key as? String).map { ($0, "\(value)") } }
    ) { $1 }
    return HTTPExchange(status: http.statusCode, headers: headers, body: data)
  }

  /// Creates a user and returns the exchange.
  @discardableResult
  func createUser(_ id: String, nickname: String = "", profileURL: String = "") async throws -> HTTPExchange {
    try await send("POST", "/v3/users", json: ["user_id": id, "nickname": nickname, "profile_url": profileURL])
  }
}

/// Runs `body` against a fresh Sandbox started with `configuration`, and stops it afterwards. Its access tokens live
/// an hour by default, not a minute: these tests check the routes, and under the whole suite one has taken longer
/// than a minute (`AuthBackendTests` check a token's life, on a clock of their own).
func withSandbox<Result>(
  _ configuration: SandboxConfiguration = SandboxConfiguration(accessTokenTTL: .seconds(3_600), logLevel: .warning),
  _ body: (SandboxClient) async throws -> Result
) async throws -> Result {
  let sandbox = try await Sandbox.start(configuration)
  do {
    let result = try await body(SandboxClient(sandbox))
    await sandbox.stop()
    return result
  } catch {
    await sandbox.stop()
    throw error
  }
}
