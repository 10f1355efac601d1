import Domain
import Foundation
import Logging
import Networking
import Persistence
import Sandbox
import Testing

/// REQUIREMENTS E4, E12 over real HTTP: what the event tracker does with the batch route's refusals as the Sandbox
/// words them (`{"errorCode":"E413",…}`, SandboxAPI §3), on each transport. The 413s are injected (§5): the tracker's
/// own limits (at most 500 events and 1 MB a batch) keep it under the route's, so the route never refuses it by
/// itself, as the last test shows.
@Suite("EventTracker refused by the Sandbox", .timeLimit(.minutes(3)))
struct EventTrackerRefusalTests {
  /// A tracker on a fresh queue that delivers only when flushed: each flush starts with one batch of what is queued.
  private func tracker(
    on sandbox: RunningSandbox, _ kind: TransportKind, in directory: URL, maxBatchCount: Int = 100
  ) throws -> EventTracker {
    try EventsSandbox.tracker(on: sandbox, kind, in: directory) {
      $0.deliversOnItsOwn = false
      $0.maxBatchCount = maxBatchCount
    }
  }

  @Test(
    "A batch refused as too large (413) is split until it fits; every event arrives once, in order",
    arguments: TransportKind.allCases)
  func splitsATooLargeBatch(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = eventsTemporaryDirectory("events-413-split")
    defer { try? FileManager.default.removeItem(at: directory) }
    try await sandbox.control.addFault(
      SandboxFault(route: "/v1/events/batch", method: "POST", status: 413, count: 1))
    let tracker = try tracker(on: sandbox, kind, in: directory)
    for number in 0..<5 { try await tracker.track(EventsSandbox.event(number)) }

    let report = await tracker.flush()
    #expect(report.delivered == 5 && report.setAsideCount == 0 && report.status.pending == 0, "\(report)")
    #expect(try await EventsSandbox.uploads(answered: 413, on: sandbox) == 1)
    #expect(try await EventsSandbox.stats(on: sandbox) == .init(requests: 2, unique: 5, duplicates: 0), "two halves")
    let stored = try await EventsSandbox.storedEvents(on: sandbox).compactMap { $0["name"] as? String }
    #expect(stored == (0..<5).map { "event_\($0)" })
    await tracker.shutDown()
    await sandbox.stop()
  }

  @Test(
    "An event still refused as too large alone is set aside with the server's reason; the rest of its batch arrives",
    arguments: TransportKind.allCases)
  func setsAsideALoneTooLargeEvent(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = eventsTemporaryDirectory("events-413-alone")
    defer { try? FileManager.default.removeItem(at: directory) }
    // Three refusals: the batch of four, then its first half, then that half's first event alone.
    try await sandbox.control.addFault(
      SandboxFault(route: "/v1/events/batch", method: "POST", status: 413, count: 3))
    let tracker = try tracker(on: sandbox, kind, in: directory)
    for number in 0..<4 { try await tracker.track(EventsSandbox.event(number)) }

    let report = await tracker.flush()
    #expect(report.delivered == 3 && report.status.pending == 0, "\(report)")
    #expect(report.setAside.map { $0.event?.name } == ["event_0"])
    #expect(report.setAside.first?.reason == "HTTP 413: Injected fault.", "the server's own words")
    #expect(try await EventsSandbox.uploads(answered: 413, on: sandbox) == 3)
    #expect(try await EventsSandbox.stats(on: sandbox).unique == 3)
    await tracker.shutDown()
    await sandbox.stop()
  }

  @Test(
    "A 503 with Retry-After: 120 puts the retry 120 s out, past the backoff; an explicit flush still sends at once",
    arguments: TransportKind.allCases)
  func honoursRetryAfter(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = eventsTemporaryDirectory("events-retry-after")
    defer { try? FileManager.default.removeItem(at: directory) }
    try await sandbox.control.addFault(
      SandboxFault(route: "/v1/events/batch", method: "POST", status: 503, retryAfter: .seconds(120), count: 1))
    let tracker = try tracker(on: sandbox, kind, in: directory)
    try await tracker.track(EventsSandbox.event(0))

    let before = Date()
    let refused = await tracker.flush()
    let after = Date()
    let retry = try #require(refused.status.nextRetry, "\(refused)")
    // The backoff alone would be at most 200 ms (`fastDelivery`).
    #expect(retry >= before.addingTimeInterval(120) && retry <= after.addingTimeInterval(120), "\(retry)")
    #expect(refused.status.lastFailure?.statusCode == 503)

    let report = await tracker.flush()
    #expect(report.delivered == 1 && report.status.nextRetry == nil, "\(report)")
    #expect(try await EventsSandbox.uploads(answered: 503, on: sandbox) == 1)
    await tracker.shutDown()
    await sandbox.stop()
  }

  @Test(
    "Batches stay within the route's limits by the tracker's own: 1,100 events go as 500, 500, 100; 3 KB events in batches under 1 MB; none refused",
    arguments: TransportKind.allCases)
  func staysWithinTheRoutesLimits(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = eventsTemporaryDirectory("events-limits")
    defer { try? FileManager.default.removeItem(at: directory) }
    let tracker = try tracker(on: sandbox, kind, in: directory, maxBatchCount: 500)

    // Small events: the count decides.
    for number in 0..<1_100 { try await tracker.track(EventsSandbox.event(number)) }
    let counted = await tracker.flush()
    #expect(counted.delivered == 1_100, "\(counted)")
    #expect(try await EventsSandbox.stats(on: sandbox).requests == 3, "500, 500 and 100")

    // 400 events of 3 KB (1.2 MB in all, within 500 events): the bytes decide.
    let text = String(repeating: "x", count: 3_000)
    for number in 0..<400 {
      try await tracker.track(AnalyticsEvent(name: "large_\(number)", properties: ["text": .string(text)]))
    }
    let sized = await tracker.flush()
    #expect(sized.delivered == 400 && sized.status.pending == 0, "\(sized)")
    let stats = try await EventsSandbox.stats(on: sandbox)
    #expect(stats.unique == 1_500, "\(stats)")
    #expect(stats.requests >= 5, "at least two batches for 1.2 MB: \(stats)")
    #expect(try await EventsSandbox.uploads(answered: 413, on: sandbox) == 0, "the route never had to refuse one")
    await tracker.shutDown()
    await sandbox.stop()
  }
}
