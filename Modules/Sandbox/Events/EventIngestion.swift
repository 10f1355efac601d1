import Foundation
import HTTPTypes
import KeelConcurrency
import KeelJSON

/// Analytics-event ingestion (SandboxAPI §3): batches deduplicated by `eventId` per tenant, so that a client
/// that redelivers never double-counts.
struct EventIngestion: Sendable {
  /// The most events one batch may carry; more is HTTP 413.
  static let maxEventsPerBatch = 500

  private struct Tenant {
    var events: [JSONValue] = []
    var seen: Set<String> = []
    var requests = 0
    var duplicates = 0
  }

  private let tenants = Locked<[String: Tenant]>([:])
  private let stats: RecordedStatistics

  init(stats: RecordedStatistics) {
    self.stats = stats
  }

  var routes: [Route] {
    [
      Route(.post, "/v1/events/batch", handler: ingest),
      Route(.get, "/v1/events", handler: list),
      Route(.get, "/v1/events/stats", handler: tenantStats),
    ]
  }

  /// Forgets every event.
  func reset() { tenants.withLock { $0 = [:] } }

  private func ingest(_ request: SandboxRequest) throws -> SandboxResponse {
    let (accepted, duplicates) = store(try Self.validatedEvents(request.body), tenant: request.tenant)
    return .json(["accepted": .number(Double(accepted)), "duplicates": .number(Double(duplicates))])
  }

  /// Keeps the events of one batch that `tenant` has not sent before, by id, and counts them; answers how many were
  /// new and how many duplicates.
  func store(_ events: [(id: String, event: JSONValue)], tenant tenantKey: String) -> (accepted: Int, duplicates: Int) {
    let (accepted, duplicates) = tenants.withLock { tenants in
      var tenant = tenants[tenantKey] ?? Tenant()
      var accepted = 0
      tenant.requests += 1
      for (id, event) in events {
        if tenant.seen.insert(id).inserted {
          tenant.events.append(event)
          accepted += 1
        }
      }
      tenant.duplicates += events.count - accepted
      tenants[tenantKey] = tenant
      return (accepted, events.count - accepted)
    }
    if accepted > 0 { stats.count("eventUniques", by: accepted) }
    if duplicates > 0 { stats.count("eventDuplicates", by: duplicates) }
    return (accepted, duplicates)
  }

  /// `?limit=` (1–1,000, default 100) events stored after position `?after=` (default 0), oldest first.
  private func list(_ request: SandboxRequest) throws -> SandboxResponse {
    guard let limit = Int(request.query["limit"] ?? "100"), (1...1_000).contains(limit) else {
      throw BackendError.malformed("limit must be 1 to 1000")
    }
    guard let after = Int(request.query["after"] ?? "0"), after >= 0 else {
      throw BackendError.malformed("after must be a position, 0 or more")
    }
    let (page, total) = tenants.withLock { tenants -> ([JSONValue], Int) in
      let events = tenants[request.tenant]?.events ?? []
      return (Array(events.dropFirst(after).prefix(limit)), events.count)
    }
    let next = after + page.count
    return .json(["events": .array(page), "next": next < total ? .number(Double(next)) : .null])
  }

  private func tenantStats(_ request: SandboxRequest) -> SandboxResponse {
    let tenant = tenants.withLock { $0[request.tenant] ?? Tenant() }
    return .json([
      "requests": .number(Double(tenant.requests)), "unique": .number(Double(tenant.events.count)),
      "duplicates": .number(Double(tenant.duplicates)),
    ])
  }

  /// The batch's events with their ids, or the error that makes it malformed (400, not retryable) or too large (413).
  private static func validatedEvents(_ body: Data) throws -> [(id: String, event: JSONValue)] {
    guard case .object(let batch)? = JSONValue.parse(body) else {
      throw BackendError.malformed("body is not a JSON object")
    }
    guard case .number? = batch["sentAt"] else { throw BackendError.malformed("sentAt must be a number") }
    guard case .array(let events)? = batch["events"] else { throw BackendError.malformed("events must be an array") }
    guard events.count <= maxEventsPerBatch else {
      throw BackendError(
        status: .contentTooLarge, code: "E413", message: "At most \(maxEventsPerBatch) events per batch.")
    }
    return try events.enumerated().map { index, event in
      guard case .object(let fields) = event,
        case .string(let id)? = fields["eventId"], UUID(uuidString: id) != nil,
        case .string(let name)? = fields["name"], !name.isEmpty,
        case .number? = fields["timestamp"]
      else { throw BackendError.malformed("event \(index) needs a UUID eventId, a name and a timestamp") }
      if let properties = fields["properties"], case .object = properties {
      } else if fields["properties"] != nil {
        throw BackendError.malformed("event \(index): properties must be an object")
      }
      return (id.lowercased(), event)
    }
  }
}
