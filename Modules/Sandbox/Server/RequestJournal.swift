import Foundation
import HTTPTypes
import KeelConcurrency
import KeelJSON
import Networking

/// What arrived, for `GET /_sandbox/requests` and the console: the last ``capacity`` requests outside the control
/// plane, each with a number, its method, path, status, tenant, arrival time and latency, so that a test sees the
/// spacing the server saw (REQUIREMENTS L2); and, for `GET /_sandbox/requests/{id}`, its query, headers and the start
/// of its body with secrets masked as Keel's logs mask them (``LogRedaction/standard``: 1 KiB of the body at most).
///
/// The tenant is the first 12 hex digits of the SHA-256 of the request's `Api-Token` (or `null` without one): enough to
/// tell tenants apart, never the token.
struct RequestJournal: Sendable {
  /// One request.
  struct Entry: Sendable {
    /// 1 for the first request the Sandbox journaled, one more for each after it (a reset starts again at 1).
    let id: Int
    let method: String
    let path: String
    let status: Int
    let tenant: String?
    /// Since the Sandbox started, on its clock.
    let arrival: Duration
    /// From arrival to the answer's head, on the same clock.
    let latency: Duration
    /// What the detail shows, secrets masked: the query, the headers, the body's start and its length.
    let query: String
    let headers: [String: String]
    let body: String?
    let bodyBytes: Int

    /// The row: what `GET /_sandbox/requests` lists and the console's live journal shows.
    var json: JSONValue {
      .object([
        "id": .number(Double(id)), "method": .string(method), "path": .string(path), "status": .number(Double(status)),
        "tenant": tenant.map { .string($0) } ?? .null,
        // Microsecond precision: the spacing of requests a millisecond apart is what a test reads here.
        "arrivalMs": .number(Self.milliseconds(arrival)), "latencyMs": .number(Self.milliseconds(latency)),
      ])
    }

    /// The row with the query, the headers and the body.
    var detail: JSONValue {
      guard case .object(var fields) = json else { return json }
      fields["query"] = .string(query)
      fields["headers"] = .object(headers.mapValues { .string($0) })
      fields["body"] = body.map { .string($0) } ?? .null
      fields["bodyBytes"] = .number(Double(bodyBytes))
      return .object(fields)
    }

    private static func milliseconds(_ duration: Duration) -> Double {
      let milliseconds =
        Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
      return (milliseconds * 1_000).rounded() / 1_000
    }
  }

  /// What a live reader of the journal hears: each request as it is recorded, and the journal emptied by a reset.
  enum Change: Sendable {
    case recorded(Entry)
    case reset
  }

  /// The most entries kept; when full, the oldest tenth is dropped.
  static let capacity = 10_000

  private struct Entries {
    var kept: [Entry] = []
    var dropped = 0
    var lastID = 0
    var readers: [Int: AsyncStream<Change>.Continuation] = [:]
    var nextReader = 0
  }

  private let entries = Locked(Entries())

  /// Records a request that arrived at `arrival` and was answered with `status` at `answered`. Its headers and body
  /// are kept masked, as the logs show them; the `Api-Token` is kept only as its tenant's digest.
  func record(
    method: String, path: String, query: String, headers: HTTPFields, body: Data?, status: Int, arrival: Duration,
    answered: Duration
  ) {
    let tenant = headers[SandboxResponder.apiToken].map { String(Secrets.digest($0).prefix(12)) }
    var fields: [String: String] = [:]
    for field in headers {
      let name = field.name.canonicalName
      let value = Self.redaction.headers.contains(name) ? LogRedaction.mask : field.value
      fields[name] = fields[name].map { $0 + ", " + value } ?? value
    }
    // Each `name=value` of the query whose name the logs treat as a secret keeps its name alone.
    let maskedQuery = query.split(separator: "&", omittingEmptySubsequences: false).map { item in
      let name = item.prefix { $0 != "=" }
      return Self.redaction.isSecret(field: String(name)) && item.count > name.count
        ? name + "=" + LogRedaction.mask : String(item)
    }.joined(separator: "&")
    let (entry, readers) = entries.withLock { entries in
      entries.lastID += 1
      let entry = Entry(
        id: entries.lastID, method: method, path: path, status: status, tenant: tenant, arrival: arrival,
        latency: answered - arrival, query: maskedQuery, headers: fields,
        body: (body?.isEmpty ?? true) ? nil : Self.redaction.render(body: body), bodyBytes: body?.count ?? 0)
      if entries.kept.count >= Self.capacity {
        entries.kept.removeFirst(Self.capacity / 10)
        entries.dropped += Self.capacity / 10
      }
      entries.kept.append(entry)
      return (entry, Array(entries.readers.values))
    }
    for reader in readers { reader.yield(.recorded(entry)) }
  }

  private static let redaction = LogRedaction.standard

  /// The entries in arrival order, those of `method` under `pathPrefix` when given, as the route returns them:
  /// `{"requests":[…],"dropped":N}`, N the older entries no longer kept.
  func json(method: String?, pathPrefix: String?) -> JSONValue {
    let (kept, dropped) = entries.withLock { ($0.kept, $0.dropped) }
    let method = method?.uppercased()
    let chosen = kept.filter { entry in
      (method.map { entry.method == $0 } ?? true) && (pathPrefix.map { entry.path.hasPrefix($0) } ?? true)
    }
    return Self.page(chosen, dropped: dropped)
  }

  private static func page(_ entries: [Entry], dropped: Int) -> JSONValue {
    .object([
      "requests": .array(entries.sorted { $0.arrival < $1.arrival }.map(\.json)), "dropped": .number(Double(dropped)),
    ])
  }

  /// The request numbered `id` with its query, headers and body, while it is kept.
  func detail(of id: Int) -> JSONValue? {
    entries.withLock { entries in
      // Numbers are consecutive: the entry is at its distance from the newest.
      guard let last = entries.kept.last, id <= last.id, last.id - id < entries.kept.count else { return nil }
      return entries.kept[entries.kept.count - 1 - (last.id - id)].detail
    }
  }

  /// The journal as it is now, as `GET /_sandbox/requests` lists it, and every change after it, with none missed in
  /// between; the stream ends when its reader stops reading. At most a journal's worth of changes wait for a slow
  /// reader; older ones are dropped from its stream.
  func follow() -> (now: JSONValue, changes: AsyncStream<Change>) {
    let (stream, continuation) = AsyncStream<Change>.makeStream(bufferingPolicy: .bufferingNewest(Self.capacity))
    let (kept, dropped, id) = entries.withLock { entries in
      entries.nextReader += 1
      entries.readers[entries.nextReader] = continuation
      return (entries.kept, entries.dropped, entries.nextReader)
    }
    continuation.onTermination = { [entries] _ in
      _ = entries.withLock { $0.readers.removeValue(forKey: id) }
    }
    return (Self.page(kept, dropped: dropped), stream)
  }

  /// Forgets every entry; live readers hear of it.
  func reset() {
    let readers = entries.withLock { entries in
      let readers = Array(entries.readers.values)
      entries = Entries(readers: entries.readers, nextReader: entries.nextReader)
      return readers
    }
    for reader in readers { reader.yield(.reset) }
  }
}
