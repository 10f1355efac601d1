import Foundation
import Networking
import Sandbox

/// The Sandbox's control plane (`/_sandbox`, loopback only), called the way an app calls any API with Keel's
/// Networking: an `Endpoint` and an `HTTPClient`.
struct SandboxControl {
  /// A route under `/_sandbox`.
  private struct Route: Endpoint {
    var baseURL: URL
    var path: EndpointPath
    var method: HTTPMethod
  }

  let sandbox: RunningSandbox
  private let client = HTTPClient()

  init(_ sandbox: RunningSandbox) { self.sandbox = sandbox }

  /// `POST /_sandbox/expire-tokens`: every access token handed out so far is refused as expired from now on.
  func expireTokens() async throws {
    let route = Route(baseURL: sandbox.baseURL, path: "/_sandbox/expire-tokens", method: .post)
    _ = try await client.send(.empty(route))
  }

  /// `GET /_sandbox/stats`: what the Sandbox has answered so far.
  func stats() async throws -> SandboxStats {
    try await client.send(.json(Route(baseURL: sandbox.baseURL, path: "/_sandbox/stats", method: .get)))
  }
}

/// The part of `GET /_sandbox/stats` this example reads.
struct SandboxStats: Decodable {
  /// Sign-ins the auth backend accepted.
  let logins: Int?
  /// Access tokens the auth backend renewed.
  let refreshes: Int?
  /// Responses per route pattern and status, such as `["GET /v1/me": ["200": 10, "401": 10]]`.
  let routes: [String: [String: Int]]

  /// How many responses of `status` the Sandbox gave to `route`.
  func responses(_ route: String, status: Int) -> Int { routes[route]?[String(status)] ?? 0 }
}
