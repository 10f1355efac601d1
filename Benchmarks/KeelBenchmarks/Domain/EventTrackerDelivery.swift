import Domain
import Foundation
import Networking
import Persistence

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The delivery measurements: events already pending in a file, delivered to an in-process Sandbox, by a new
/// `EventTracker` and by ``EventTrackerNaivePeer``. Each round sends as a tenant of its own, whose counts the Sandbox
/// then confirms.
enum EventTrackerDelivery {
  /// Events per second from the tracker's creation on a file holding `events` pending events until it has
  /// delivered them all: opening the file, loading the counts, then uploads of the default batch size (100), each
  /// acknowledged by a committed delete, through `URLSessionTransport`.
  static func keelThroughput(events: Int, _ shared: DomainBenchSandbox) async throws -> Double {
    let running = try await shared.start()
    let token = await shared.nextToken()
    let directory = try EventTrackerBenchFixture.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("events.sqlite")
    try await EventTrackerBenchFixture.prefill(url, count: events)
    let clock = ContinuousClock()
    let start = clock.now
    let tracker = try EventTracker(
      baseURL: running.baseURL, apiToken: token, queueURL: url, settings: InMemoryKeyValueStore(),
      transport: URLSessionTransport(session: running.keelSession), monitor: ManualNetworkMonitor(.online),
      configuration: EventTrackerConfiguration(flushInterval: .seconds(3_600)), clock: ContinuousClock())
    var failure: String?
    // `pending` reads 0 until the tracker has loaded the counts, so the end is the delivered count.
    for await status in tracker.deliveryStatus {
      if let error = status.lastError { failure = error }
      if failure != nil || status.delivered >= events { break }
    }
    let elapsed = nanoseconds(start.duration(to: clock.now))
    let status = tracker.status
    await tracker.shutDown()
    if let failure { throw BenchmarkError(description: "keel delivery: an upload failed: \(failure)") }
    guard status.pending == 0, status.delivered == events, status.duplicates == 0 else {
      throw BenchmarkError(description: "keel delivery: \(status)")
    }
    try await shared.confirm(token, received: events)
    return Double(events) / (elapsed / 1e9)
  }

  /// Events per second the naive peer delivers from a file holding `events` pending events: one POST per event,
  /// the file rewritten after each 200.
  static func peerThroughput(events: Int, _ shared: DomainBenchSandbox) async throws -> Double {
    let running = try await shared.start()
    let token = await shared.nextToken()
    let directory = try EventTrackerBenchFixture.scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let peer = try EventTrackerNaivePeer(
      url: directory.appendingPathComponent("events.json"), pending: (0..<events).map(EventTrackerBenchFixture.event))
    let clock = ContinuousClock()
    let start = clock.now
    try await peer.deliverAll(session: running.peerSession, baseURL: running.baseURL, apiToken: token)
    let elapsed = nanoseconds(start.duration(to: clock.now))
    guard peer.count == 0 else { throw BenchmarkError(description: "peer delivery: \(peer.count) left") }
    try await shared.confirm(token, received: events)
    return Double(events) / (elapsed / 1e9)
  }
}
