import Domain
import Foundation
import Logging
import Networking
import Persistence
import Sandbox
import Testing

/// REQUIREMENTS E12 over real HTTP: what the event tracker does with the batch route's refusals as the Sandbox words
/// them (`{"errorCode":"E413",…}`, SandboxAPI §3), on each transport. The 413s are injected (§5): the tracker's own
/// limits (at most 500 events and 1 MB a batch) keep it under the route's, so the route never refuses it by itself.
@Suite("EventTracker refused by the Sandbox", .timeLimit(.minutes(3)))
struct EventTrackerRefusalTests {
  /// A tracker on a fresh queue that delivers only when flushed: each flush starts with one batch of what is queued.
  /// Its uploads may take as long as a loaded machine needs: a timed-out upload the server still served would spend
  /// the injected refusal and make the retry a different test.
  private func tracker(on sandbox: RunningSandbox, _ kind: TransportKind, in directory: URL) throws -> EventTracker {
    var configuration = EventsSandbox.fastDelivery
    configuration.deliversOnItsOwn = false
    configuration.uploadTimeout = .seconds(60)
    return try EventTracker(
      baseURL: sandbox.baseURL, apiToken: EventsSandbox.apiToken,
      queueURL: directory.appendingPathComponent("events.sqlite"), settings: InMemoryKeyValueStore(),
      transport: kind.transport, monitor: ManualNetworkMonitor(.online), configuration: configuration,
      clock: ContinuousClock())
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
}
