import Foundation
import Networking
import Sandbox

/// What the Sandbox saw, read the way an app calls any API with Keel's Networking: an `Endpoint` and an
/// `HTTPClient`. The control plane (`/_sandbox`) is loopback only; the event listing takes the tenant's `Api-Token`.
struct SandboxControl {
  /// A `GET` route of the Sandbox.
  private struct Route: Endpoint {
    var baseURL: URL
    var path: EndpointPath
    var method: HTTPMethod { .get }
    var headers: [String: String] = [:]
    var query: [QueryItem] = []
  }

  /// One page of `GET /v1/events`.
  private struct EventPage: Decodable {
    struct Event: Decodable { let eventId: String }
    let events: [Event]
    let next: Int?
  }

  let sandbox: RunningSandbox
  private let client = HTTPClient()

  init(_ sandbox: RunningSandbox) { self.sandbox = sandbox }

  /// `GET /_sandbox/stats`: what the Sandbox has answered so far.
  func stats() async throws -> SandboxStats {
    try await client.send(.json(Route(baseURL: sandbox.baseURL, path: "/_sandbox/stats")))
  }

  /// The id of every event the tenant of `apiToken` holds, from `GET /v1/events`, page by page.
  func storedEventIds(apiToken: String) async throws -> [UUID] {
    var ids: [UUID] = []
    var after: Int? = 0
    while let position = after {
      let route = Route(
        baseURL: sandbox.baseURL, path: "/v1/events", headers: ["Api-Token": apiToken],
        query: [QueryItem("limit", "1000"), QueryItem("after", String(position))])
      let page: EventPage = try await client.send(.json(route))
      ids += page.events.compactMap { UUID(uuidString: $0.eventId) }
      after = page.next
    }
    return ids
  }
}

/// The part of `GET /_sandbox/stats` this example reads.
struct SandboxStats: Decodable {
  /// Events stored for the first time, over every tenant.
  let eventUniques: Int?
  /// Events received again after they were stored, over every tenant.
  let eventDuplicates: Int?
  /// Responses per route pattern and status, such as `["POST /v1/events/batch": ["200": 10, "503": 4]]`.
  let routes: [String: [String: Int]]

  /// How many responses of `status` the Sandbox gave to `route`.
  func responses(_ route: String, status: Int) -> Int { routes[route]?[String(status)] ?? 0 }
}
