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
    var method: HTTPMethod { .get }
  }

  let sandbox: RunningSandbox
  private let client = HTTPClient()

  init(_ sandbox: RunningSandbox) { self.sandbox = sandbox }

  /// `GET /_sandbox/stats`: what the Sandbox has answered so far.
  func stats() async throws -> SandboxStats {
    try await client.send(.json(Route(baseURL: sandbox.baseURL, path: "/_sandbox/stats")))
  }
}

/// The part of `GET /_sandbox/stats` this example reads.
struct SandboxStats: Decodable {
  /// Responses per route pattern and status, such as `["POST /v3/users": ["200": 4]]`.
  let routes: [String: [String: Int]]

  /// How many responses of `status` the Sandbox gave to `route`.
  func responses(_ route: String, status: Int) -> Int { routes[route]?[String(status)] ?? 0 }

  /// How many requests reached `route`, whatever the answer.
  func requests(_ route: String) -> Int { routes[route]?.values.reduce(0, +) ?? 0 }
}
