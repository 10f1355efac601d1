import KeelConcurrency
import KeelJSON

/// What arrived, for `GET /_sandbox/requests`: the last ``capacity`` requests outside the control plane, each with its
/// method, path, status, tenant and arrival time, so that a test sees the spacing the server saw (REQUIREMENTS L2).
///
/// The tenant is the first 12 hex digits of the SHA-256 of the request's `Api-Token` (or `null` without one): enough to
/// tell tenants apart, never the token.
struct RequestJournal: Sendable {
  /// One request.
  struct Entry: Sendable {
    let method: String
    let path: String
    let status: Int
    let tenant: String?
    /// Since the Sandbox started, on its clock.
    let arrival: Duration

    var json: JSONValue {
      let milliseconds = Double(arrival.components.seconds) * 1e3 + Double(arrival.components.attoseconds) / 1e15
      return .object([
        "method": .string(method), "path": .string(path), "status": .number(Double(status)),
        "tenant": tenant.map { .string($0) } ?? .null,
        // Microsecond precision: the spacing of requests a millisecond apart is what a test reads here.
        "arrivalMs": .number((milliseconds * 1_000).rounded() / 1_000),
      ])
    }
  }

  /// The most entries kept; when full, the oldest tenth is dropped.
  static let capacity = 10_000

  private struct Entries {
    var kept: [Entry] = []
    var dropped = 0
  }

  private let entries = Locked(Entries())

  /// Records a request that arrived at `arrival` and was answered with `status`.
  func record(method: String, path: String, status: Int, apiToken: String?, arrival: Duration) {
    let tenant = apiToken.map { String(Secrets.digest($0).prefix(12)) }
    let entry = Entry(method: method, path: path, status: status, tenant: tenant, arrival: arrival)
    entries.withLock { entries in
      if entries.kept.count >= Self.capacity {
        entries.kept.removeFirst(Self.capacity / 10)
        entries.dropped += Self.capacity / 10
      }
      entries.kept.append(entry)
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
    return .object([
      "requests": .array(chosen.sorted { $0.arrival < $1.arrival }.map(\.json)), "dropped": .number(Double(dropped)),
    ])
  }

  /// Forgets every entry.
  func reset() { entries.withLock { $0 = Entries() } }
}
