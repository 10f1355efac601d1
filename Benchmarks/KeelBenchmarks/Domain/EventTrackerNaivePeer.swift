import Domain
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The source approach, as the event tracker's peer: the whole pending array in memory, JSON-encoded and written
/// atomically to one key-value file (a temporary file, then a rename, as `UserDefaults` or
/// `Data.write(to:options: .atomic)` do) on every change, behind a lock; delivery is one POST per event, and the
/// file is rewritten after each acknowledgement. ``DurableQueueNaiveFile`` is the same file for the queue's rows.
/// No `fsync`: it is less durable than Keel, which only flatters it.
final class EventTrackerNaivePeer: Sendable {
  private let url: URL
  private let pending: Mutex<[AnalyticsEvent]>

  /// A file holding `pending`.
  init(url: URL, pending: [AnalyticsEvent]) throws {
    self.url = url
    self.pending = Mutex(pending)
    try self.pending.withLock { try Self.save($0, to: url) }
  }

  /// How many events wait.
  var count: Int { pending.withLock { $0.count } }

  /// Appends `event` and rewrites the file before returning.
  func track(_ event: AnalyticsEvent) throws {
    try pending.withLock { pending in
      pending.append(event)
      try Self.save(pending, to: url)
    }
  }

  /// Sends the pending events one POST each, oldest first, to `/v1/events/batch` under `baseURL`, deleting each
  /// from the file once the server answered 200.
  func deliverAll(session: URLSession, baseURL: URL, apiToken: String) async throws {
    let endpoint = baseURL.appendingPathComponent("v1").appendingPathComponent("events")
      .appendingPathComponent("batch")
    while let event = pending.withLock({ $0.first }) {
      var request = URLRequest(url: endpoint)
      request.httpMethod = "POST"
      request.setValue(apiToken, forHTTPHeaderField: "Api-Token")
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      request.httpBody = EventsRouter.batchBody([try EventsRouter.encode(event)], sentAt: Date())
      let (_, response) = try await session.data(for: request)
      guard (response as? HTTPURLResponse)?.statusCode == 200 else {
        throw BenchmarkError(description: "naive delivery: not a 200: \(response)")
      }
      try pending.withLock { pending in
        pending.removeFirst()
        try Self.save(pending, to: url)
      }
    }
  }

  private static func save(_ pending: [AnalyticsEvent], to url: URL) throws {
    try JSONEncoder().encode(pending).write(to: url, options: .atomic)
  }
}
