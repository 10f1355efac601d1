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
    /// What the detail shows, kept as it came and masked only when it is read: the query, the headers, the body's
    /// first ``LogRedaction/bodyLimit`` bytes and its length.
    let query: String
    let headers: HTTPFields
    let bodyStart: [UInt8]
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

    /// The row with the query, the headers and the body, secrets masked as Keel's logs mask them.
    var detail: JSONValue {
      guard case .object(var fields) = json else { return json }
      let redaction = RequestJournal.redaction
      var headers: [String: String] = [:]
      for field in self.headers {
        let name = field.name.canonicalName
        let value = redaction.headers.contains(name) ? LogRedaction.mask : field.value
        headers[name] = headers[name].map { $0 + ", " + value } ?? value
      }
      // Each `name=value` of the query whose name the logs treat as a secret keeps its name alone.
      let query = query.split(separator: "&", omittingEmptySubsequences: false).map { item in
        let name = item.prefix { $0 != "=" }
        return redaction.isSecret(field: String(name)) && item.count > name.count
          ? name + "=" + LogRedaction.mask : String(item)
      }.joined(separator: "&")
      var body: JSONValue = .null
      if bodyBytes > 0 {
        // The first bytes, and how many more there were, as the logs write a body.
        var text = redaction.render(body: Data(bodyStart))
        if bodyBytes > bodyStart.count { text += " … (\(bodyBytes) bytes)" }
        body = .string(text)
      }
      fields["query"] = .string(query)
      fields["headers"] = .object(headers.mapValues { .string($0) })
      fields["body"] = body
      fields["bodyBytes"] = .number(Double(bodyBytes))
      return .object(fields)
    }

    private static func milliseconds(_ duration: Duration) -> Double {
      (duration.milliseconds * 1_000).rounded() / 1_000
    }
  }

  /// What a live reader gets from ``since(_:)``: the rows journaled after the last it had, or, when the journal was
  /// reset or dropped some of them before it read them, the whole journal again.
  enum News: Sendable {
    case rows([JSONValue], last: Position)
    case journal(JSONValue, last: Position)
  }

  /// Where a live reader is: the last request it has, in which edition of the journal (one more at each reset).
  struct Position: Sendable, Equatable {
    let id: Int
    let edition: Int
  }

  /// The most entries kept; when full, the oldest tenth is dropped.
  static let capacity = 10_000

  private struct Entries {
    var kept: [Entry] = []
    var dropped = 0
    var lastID = 0
    var edition = 0
    /// Live readers, each woken (never queued up) when the journal changes.
    var readers: [Int: AsyncStream<Void>.Continuation] = [:]
    var nextReader = 0
  }

  private let entries = Locked(Entries())
  static let redaction = LogRedaction.standard

  /// Records a request that arrived at `arrival` and was answered with `status` at `answered`, with its query, its
  /// headers and the start of its body, kept as they came (masked when read) so that a request pays only for a copy;
  /// of its `Api-Token`, only `tokenDigest` (``Secrets/digest(_:)``), as its tenant. Wakes every live reader.
  func record(
    method: String, path: String, query: String, headers: HTTPFields, tokenDigest: String?, body: Data?, status: Int,
    arrival: Duration, answered: Duration
  ) {
    let tenant = tokenDigest.map { String($0.prefix(12)) }
    // Bytes, not a `Data` slice copied into a new `Data`: that copy is what LeakSanitizer reported as leaked under the
    // fuzzer (Foundation's inline-slice storage).
    let bodyStart = body.map { [UInt8]($0.prefix(Self.redaction.bodyLimit)) } ?? []
    entries.withLock { entries in
      entries.lastID += 1
      let entry = Entry(
        id: entries.lastID, method: method, path: path, status: status, tenant: tenant, arrival: arrival,
        latency: answered - arrival, query: query, headers: headers, bodyStart: bodyStart,
        bodyBytes: body?.count ?? 0)
      if entries.kept.count >= Self.capacity {
        entries.kept.removeFirst(Self.capacity / 10)
        entries.dropped += Self.capacity / 10
      }
      entries.kept.append(entry)
      // Under the lock, so that readers are woken in the order requests were numbered; a wake never blocks.
      for reader in entries.readers.values { reader.yield() }
    }
  }

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
    let entry = entries.withLock { entries -> Entry? in
      // Numbers are consecutive: the entry is at its distance from the first kept.
      guard let first = entries.kept.first, (first.id...entries.lastID).contains(id) else { return nil }
      return entries.kept[id - first.id]
    }
    return entry?.detail
  }

  /// A live reader: a stream that yields whenever the journal changes (wakes that come together are one), and the
  /// position to ask ``since(_:)`` from, taken after the reader was added, so that nothing falls between them. The
  /// stream ends when its reader stops reading.
  func follow() -> (wakes: AsyncStream<Void>, from: Position) {
    let (wakes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let (id, position) = entries.withLock { entries in
      entries.nextReader += 1
      entries.readers[entries.nextReader] = continuation
      // Before the first request of this edition: the reader's first `since` gives the whole journal.
      return (entries.nextReader, Position(id: -1, edition: entries.edition))
    }
    continuation.onTermination = { [entries] _ in
      _ = entries.withLock { $0.readers.removeValue(forKey: id) }
    }
    return (wakes, position)
  }

  /// What a reader at `position` has not had: the rows after it, or the whole journal when the journal was reset
  /// since, some rows after it were dropped before it read them, or it has had nothing yet. Bounded by the journal's
  /// capacity however far behind the reader is.
  func since(_ position: Position) -> News {
    let (rows, dropped, last, whole) = entries.withLock { entries -> ([Entry], Int, Position, Bool) in
      let last = Position(id: entries.lastID, edition: entries.edition)
      let firstKept = entries.kept.first?.id ?? entries.lastID + 1
      if position.id < 0 || position.edition != entries.edition || position.id + 1 < firstKept {
        return (entries.kept, entries.dropped, last, true)
      }
      return (Array(entries.kept.suffix(entries.lastID - position.id)), entries.dropped, last, false)
    }
    return whole ? .journal(Self.page(rows, dropped: dropped), last: last) : .rows(rows.map(\.json), last: last)
  }

  /// Forgets every entry; live readers are woken, and their next ``since(_:)`` gives the empty journal.
  func reset() {
    entries.withLock { entries in
      entries = Entries(edition: entries.edition + 1, readers: entries.readers, nextReader: entries.nextReader)
      for reader in entries.readers.values { reader.yield() }
    }
  }
}
