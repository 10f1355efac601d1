import Domain
import Foundation
import Networking
import Persistence

/// What the event tracker rows share: their events, a scratch directory per round, and a queue file filled before the
/// clock starts.
enum EventTrackerBenchFixture {
  /// Events waiting before each tracking round, as the targets specify.
  static let pendingBefore = 10_000

  /// Event number `index`: a name, a timestamp and four string properties, about 250 bytes of JSON, like
  /// ``DurableQueueBenchEvent``.
  static func event(_ index: Int) -> AnalyticsEvent {
    AnalyticsEvent(
      name: "screen_viewed",
      properties: [
        "screen": "ProfileViewController", "previous": "ChannelListViewController",
        "session": .string("9f1c2a4e-\(index)"), "appVersion": "4.21.0",
      ],
      timestamp: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)))
  }

  /// A new, empty directory in the temporary directory; the caller removes it.
  static func scratchDirectory() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-bench-events-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  /// Writes `count` events into a new queue file at `url` in one transaction, and closes it before returning. With
  /// `notBefore`, the events are released until then, as a failed upload leaves them.
  static func prefill(_ url: URL, count: Int, notBefore: Date? = nil) async throws {
    let queue = try DurableQueue<AnalyticsEvent>(
      url: url, capacity: EventTrackerConfiguration().capacity, overflow: .dropOldest)
    let result = try await queue.enqueue(contentsOf: (0..<count).map(event))
    if let notBefore { try await queue.release(result.ids, retryAt: notBefore) }
  }

  /// Runs `body` with a tracker on a fresh file that holds ``pendingBefore`` events, and with an uploader that leaves
  /// them alone, so that only `track` is measured; then shuts the tracker down and deletes the file.
  ///
  /// The events are written before the tracker starts, in one transaction, and released for half an hour, as after a
  /// failed upload: the tracker finds them at start, counts them as pending, and its uploader waits for their retry
  /// date instead of uploading. Events tracked meanwhile are due at once, so nothing may wake the uploader for them:
  /// the flush interval is an hour and the flush count beyond any round, so the uploader never writes to the file
  /// during a round. The transport would accept every batch without sending; the round fails if it was asked to send
  /// anything.
  static func withPrefilledTracker<T: Sendable>(
    _ durability: Durability, _ body: @Sendable (EventTracker) async throws -> T
  ) async throws -> T {
    let directory = try scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("events.sqlite")
    // Half an hour: within the longest wait the tracker sets (a retry date further away reads as the clock having
    // gone back, and is due at once).
    try await prefill(url, count: pendingBefore, notBefore: Date().addingTimeInterval(1_800))
    let transport = EventTrackerAcceptingTransport()
    let tracker = try EventTracker(
      baseURL: URL(string: "http://events.invalid")!, apiToken: "bench", queueURL: url,
      settings: InMemoryKeyValueStore(), transport: transport,
      monitor: ManualNetworkMonitor(.online),
      configuration: EventTrackerConfiguration(
        flushCount: .max, flushInterval: .seconds(3_600), durability: durability),
      clock: ContinuousClock())
    // The uploader's first round (it delivers what an earlier run left) finds nothing due and waits for the retry
    // date; only then may tracking start, or the round would take the new events. A flush would send everything:
    // an explicit flush does not wait for retry dates.
    _ = await tracker.loadedStatus
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .seconds(10))
    while tracker.status.nextRetry == nil, clock.now < deadline { try await clock.sleep(for: .milliseconds(1)) }
    let result: Result<T, any Error>
    if tracker.status.pending == pendingBefore, tracker.status.nextRetry != nil {
      do {
        result = .success(try await body(tracker))
      } catch {
        result = .failure(error)
      }
    } else {
      result = .failure(
        BenchmarkError(
          description:
            "tracker: \(tracker.status.pending) pending at start, next retry \(String(describing: tracker.status.nextRetry))"
        ))
    }
    await tracker.shutDown()
    guard transport.requestCount == 0 else {
      throw BenchmarkError(description: "tracker: \(transport.requestCount) uploads during a tracking round")
    }
    return try result.get()
  }
}
