import CrashFixtures
import Domain
import Foundation
import Networking
import Persistence
import Sandbox

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The Sandbox's event ingestion (SandboxAPI §3) and its fault control (§5), for the event tracker's tests.
enum EventsSandbox {
  /// The tenant the tests deliver to (the Sandbox runs in open mode: any non-empty token is a tenant).
  static let apiToken = "events-it"

  /// Short delays, so that retries through faults and outages take milliseconds rather than minutes, and a 2-second
  /// upload timeout: on Linux, when the Sandbox drops a reused keep-alive connection, FoundationNetworking does not
  /// fail the request but waits until the Sandbox's 30-second idle timeout (curl notices at once); the tracker's own
  /// timeout turns that stall into a failed upload that it retries. NIOHTTPTransport fails such an upload at once
  /// (`networkConnectionLost`); there the timeout bounds each whole upload, which at 2 seconds is ample on loopback.
  static let fastDelivery = EventTrackerConfiguration(
    flushInterval: .milliseconds(100), baseRetryDelay: .milliseconds(20), maxRetryDelay: .milliseconds(200),
    uploadTimeout: .seconds(2))

  /// A tracker on the queue in `directory`, online, delivering to `sandbox` through `kind` with ``fastDelivery``'s
  /// delays, changed by `adjust`. Its uploads may take as long as a loaded machine needs: a timed-out upload the
  /// server still served would spend an injected fault and make the retry a different test.
  static func tracker(
    on sandbox: RunningSandbox, _ kind: TransportKind, in directory: URL,
    _ adjust: (inout EventTrackerConfiguration) -> Void = { _ in }
  ) throws -> EventTracker {
    var configuration = fastDelivery
    configuration.uploadTimeout = .seconds(60)
    adjust(&configuration)
    return try EventTracker(
      baseURL: sandbox.baseURL, apiToken: apiToken, queueURL: directory.appendingPathComponent("events.sqlite"),
      settings: InMemoryKeyValueStore(), transport: kind.transport, monitor: ManualNetworkMonitor(.online),
      configuration: configuration, clock: ContinuousClock())
  }

  /// The event id of event number `number`, as `DomainCrashHelper` derives it: the parent of a crash test knows which
  /// events must have arrived.
  static func eventId(_ number: Int) -> UUID { CrashFixtures.eventId(number) }

  /// Event number `number`, with its deterministic id.
  static func event(_ number: Int) -> AnalyticsEvent {
    AnalyticsEvent(name: "event_\(number)", properties: ["number": .number(Double(number))], eventId: eventId(number))
  }

  /// `GET /v1/events/stats` for the tenant.
  struct Stats: Sendable, Equatable {
    /// Batches the tenant's handler accepted (injected faults are answered before it, so they are not counted).
    var requests: Int
    /// Distinct event ids stored.
    var unique: Int
    /// Events received again after they were stored.
    var duplicates: Int
  }

  /// The tenant's ingestion counters.
  static func stats(on sandbox: RunningSandbox) async throws -> Stats {
    let body = try await HTTPClient().send(.data(route(sandbox, "/v1/events/stats", headers: ["Api-Token": apiToken])))
    let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
    func count(_ name: String) -> Int { (object?[name] as? NSNumber)?.intValue ?? -1 }
    return Stats(requests: count("requests"), unique: count("unique"), duplicates: count("duplicates"))
  }

  /// Every event id the tenant holds, read page by page from `GET /v1/events`.
  static func storedEventIds(on sandbox: RunningSandbox) async throws -> Set<UUID> {
    var ids: Set<UUID> = []
    var after = 0
    while true {
      let page = try await HTTPClient().send(
        .data(
          route(
            sandbox, "/v1/events", headers: ["Api-Token": apiToken],
            query: [QueryItem("limit", "1000"), QueryItem("after", String(after))])))
      let object = try JSONSerialization.jsonObject(with: page) as? [String: Any]
      let events = object?["events"] as? [[String: Any]] ?? []
      for event in events {
        if let id = (event["eventId"] as? String).flatMap(UUID.init(uuidString:)) { ids.insert(id) }
      }
      guard let next = (object?["next"] as? NSNumber)?.intValue, !events.isEmpty else { return ids }
      after = next
    }
  }

  /// Every event the tenant's store holds, oldest first, as the Sandbox keeps it.
  static func storedEvents(on sandbox: RunningSandbox) async throws -> [[String: Any]] {
    let page = try await HTTPClient().send(
      .data(
        route(
          sandbox, "/v1/events", headers: ["Api-Token": apiToken], query: [QueryItem("limit", "1000")])))
    let object = try JSONSerialization.jsonObject(with: page) as? [String: Any]
    return object?["events"] as? [[String: Any]] ?? []
  }

  /// `POST /_sandbox/faults` on `/v1/events/batch`: `status` for a share `rate` of the uploads.
  static func refuseUploads(status: Int, rate: Double, on sandbox: RunningSandbox) async throws {
    struct Fault: Encodable, Sendable {
      let route: String
      let status: Int
      let rate: Double
    }
    _ = try await HTTPClient().send(
      .data(
        route(
          sandbox, "/_sandbox/faults", method: .post,
          body: .json(Fault(route: "/v1/events/batch", status: status, rate: rate)))))
  }

  /// `DELETE /_sandbox/faults`.
  static func removeFaults(on sandbox: RunningSandbox) async throws {
    _ = try await HTTPClient().send(.data(route(sandbox, "/_sandbox/faults", method: .delete)))
  }

  /// How many uploads the Sandbox answered with `status`, injected faults included.
  static func uploads(answered status: Int, on sandbox: RunningSandbox) async throws -> Int {
    try await sandboxResponses("POST /v1/events/batch", status: status, on: sandbox)
  }

  private static func route(
    _ sandbox: RunningSandbox, _ path: EndpointPath, method: HTTPMethod = .get, headers: [String: String] = [:],
    query: [QueryItem] = [], body: HTTPBody = .empty
  ) -> EventsEndpoint {
    EventsEndpoint(baseURL: sandbox.baseURL, path: path, method: method, headers: headers, query: query, body: body)
  }
}

/// A call to the Sandbox's event or control routes.
struct EventsEndpoint: Endpoint {
  var baseURL: URL
  var path: EndpointPath
  var method: HTTPMethod
  var headers: [String: String]
  var query: [QueryItem]
  var body: HTTPBody
}

/// Polls `condition` in real time, every `interval`, until it holds or `timeout` has passed; returns whether it held.
/// Integration tests only: the tracker runs on a `ContinuousClock` against a real server.
func eventsPoll(
  timeout: Duration, every interval: Duration = .milliseconds(20), _ condition: () async throws -> Bool
) async throws -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now + timeout
  while clock.now < deadline {
    if try await condition() { return true }
    try await clock.sleep(for: interval)
  }
  return try await condition()
}

/// A temporary directory for a queue file, removed by the caller.
func eventsTemporaryDirectory(_ label: String) -> URL {
  FileManager.default.temporaryDirectory.appendingPathComponent("keel-\(label)-\(UUID().uuidString)")
}
