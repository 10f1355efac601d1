import Foundation
import NIOTransports
import Networking
import Sandbox

extension SandboxControl {
  /// A `GET` route of the Sandbox's event API.
  private struct EventsRoute: Endpoint {
    var baseURL: URL
    var path: EndpointPath { "/v1/events" }
    var method: HTTPMethod { .get }
    var headers: [String: String]
    var query: [QueryItem]
  }

  /// One page of `GET /v1/events`.
  private struct EventPage: Decodable {
    struct Event: Decodable { let eventId: String }
    let events: [Event]
    let next: Int?
  }

  /// The id of every event the tenant of `apiToken` holds, from `GET /v1/events`, page by page: read the way an app
  /// calls any API with Keel's Networking, an `Endpoint` and an `HTTPClient`.
  func storedEventIds(apiToken: String) async throws -> [UUID] {
    let client = HTTPClient(transport: NIOHTTPTransport())
    var ids: [UUID] = []
    var after: Int? = 0
    while let position = after {
      let route = EventsRoute(
        baseURL: baseURL, headers: ["Api-Token": apiToken],
        query: [QueryItem("limit", "1000"), QueryItem("after", String(position))])
      let page: EventPage = try await client.send(.json(route))
      ids += page.events.compactMap { UUID(uuidString: $0.eventId) }
      after = page.next
    }
    return ids
  }
}
