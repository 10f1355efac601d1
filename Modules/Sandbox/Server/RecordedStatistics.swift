import KeelConcurrency
import KeelJSON

/// What the Sandbox saw, for `GET /_sandbox/stats`: responses per route and status, and the counters the
/// sections keep.
struct RecordedStatistics: Sendable {
  private struct Counts {
    var byRoute: [String: [Int: Int]] = [:]
    var counters: [String: Int] = [:]
  }

  private let counts = Locked(Counts())

  /// Counts one response of `status` to `route` (a pattern such as `GET /v3/users/:user_id`).
  func record(route: String, status: Int) {
    counts.withLock { $0.byRoute[route, default: [:]][status, default: 0] += 1 }
  }

  /// Adds `amount` to the counter `name` (`logins`, `refreshes`, `imageHits`, …).
  func count(_ name: String, by amount: Int = 1) {
    counts.withLock { $0.counters[name, default: 0] += amount }
  }

  /// Everything, as the stats route returns it.
  var json: JSONValue {
    counts.withLock { counts in
      var fields: [String: JSONValue] = counts.counters.mapValues { .number(Double($0)) }
      fields["routes"] = .object(
        counts.byRoute.mapValues { statuses in
          .object(Dictionary(uniqueKeysWithValues: statuses.map { (String($0.key), .number(Double($0.value))) }))
        })
      return .object(fields)
    }
  }

  /// The responses counted, one `(route, status, count)` for each pair seen, in order of route then status.
  var routeCounts: [(route: String, status: Int, count: Int)] {
    counts.withLock { counts in
      counts.byRoute.sorted { $0.key < $1.key }.flatMap { route, statuses in
        statuses.sorted { $0.key < $1.key }.map { (route, $0.key, $0.value) }
      }
    }
  }

  /// Zeroes everything.
  func reset() { counts.withLock { $0 = Counts() } }
}
