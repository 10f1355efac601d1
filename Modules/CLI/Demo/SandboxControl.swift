import Foundation
import Networking

/// The Sandbox's control plane (`/_sandbox/…`): what the demo uses to cause faults and to count what happened.
struct SandboxControl: Sendable {
  private struct Route: Endpoint {
    var baseURL: URL
    var path: EndpointPath
    var method: HTTPMethod = .get
    var body: HTTPBody = .empty
  }

  let baseURL: URL
  private let client = HTTPClient()

  init(baseURL: URL) {
    self.baseURL = baseURL
  }

  /// Expires every access token now.
  func expireTokens() async throws {
    _ = try await client.send(.data(Route(baseURL: baseURL, path: "/_sandbox/expire-tokens", method: .post)))
  }

  /// Makes `rate` of the requests to `route` fail with `status`.
  func fail(_ route: String, status: Int, rate: Double) async throws {
    struct Fault: Encodable, Sendable {
      let route: String
      let status: Int
      let rate: Double
    }
    let fault = Fault(route: route, status: status, rate: rate)
    _ = try await client.send(
      .data(Route(baseURL: baseURL, path: "/_sandbox/faults", method: .post, body: .json(fault))))
  }

  /// Removes every fault.
  func removeFaults() async throws {
    _ = try await client.send(.data(Route(baseURL: baseURL, path: "/_sandbox/faults", method: .delete)))
  }

  /// A counter of `GET /_sandbox/stats`, such as `refreshes` or `eventUniques`; 0 when absent.
  func counter(_ name: String) async throws -> Int {
    let stats = try await self.stats()
    return (stats[name] as? NSNumber)?.intValue ?? 0
  }

  /// How many responses of `status` the Sandbox gave to `route`, such as `POST /v3/users`.
  func responses(_ route: String, status: Int) async throws -> Int {
    let routes = try await stats()["routes"] as? [String: Any]
    return ((routes?[route] as? [String: Any])?[String(status)] as? NSNumber)?.intValue ?? 0
  }

  private func stats() async throws -> [String: Any] {
    let data = try await client.send(.data(Route(baseURL: baseURL, path: "/_sandbox/stats")))
    return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
  }
}
