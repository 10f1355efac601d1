import Clocks
import Domain
import Foundation
import Logging
import Networking
import Persistence
import Sandbox
import TestSupport
import Testing

/// REQUIREMENTS E3, E4, E5, E12, E13 over real HTTP: when the tracker delivers, what a full queue drops while an
/// upload is held, what it does with refusals of part of a batch and with a 200 that is not the API's receipt, and
/// Segment's batch limit, on each transport.
@Suite("EventTracker delivery against the Sandbox", .timeLimit(.minutes(3)))
struct EventTrackerDeliveryTests {
  private func tracker(
    on sandbox: RunningSandbox, _ kind: TransportKind, in directory: URL,
    _ adjust: (inout EventTrackerConfiguration) -> Void = { _ in }
  ) throws -> EventTracker {
    try EventsSandbox.tracker(on: sandbox, kind, in: directory, adjust)
  }

  @Test(
    "Events an earlier run left in the queue reach the Sandbox at start, with no flush",
    arguments: TransportKind.allCases)
  func leftoversAtStart(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = eventsTemporaryDirectory("events-leftovers")
    defer { try? FileManager.default.removeItem(at: directory) }
    let first = try tracker(on: sandbox, kind, in: directory) { $0.deliversOnItsOwn = false }
    for number in 0..<3 { try await first.track(EventsSandbox.event(number)) }
    await first.shutDown()
    #expect(try await EventsSandbox.stats(on: sandbox).requests == 0)

    // An hour's flush interval and the default flush count: only the leftovers can start this delivery.
    let second = try tracker(on: sandbox, kind, in: directory) { $0.flushInterval = .seconds(3_600) }
    let arrived = try await eventsPoll(timeout: .seconds(60)) {
      try await EventsSandbox.stats(on: sandbox).unique == 3
    }
    #expect(arrived, "\(second.status)")
    #expect(try await EventsSandbox.storedEventIds(on: sandbox) == Set((0..<3).map(EventsSandbox.eventId)))
    await second.shutDown()
    await sandbox.stop()
  }

  @Test(
    "While the Sandbox holds an upload, a full queue drops the oldest, those in flight; they still arrive, and the rest next",
    arguments: TransportKind.allCases)
  func overflowDuringAHeldUpload(_ kind: TransportKind) async throws {
    let serverClock = HoldingClock()
    let sandbox = try await Sandbox.start(
      SandboxConfiguration(
        faults: [SandboxFault(route: "/v1/events/batch", method: "POST", latency: .seconds(1), count: 1)],
        clock: serverClock, logLevel: .warning))
    let directory = eventsTemporaryDirectory("events-overflow")
    defer { try? FileManager.default.removeItem(at: directory) }
    let tracker = try tracker(on: sandbox, kind, in: directory) {
      $0.capacity = 5
      $0.deliversOnItsOwn = false
    }
    for number in 0..<3 { try await tracker.track(EventsSandbox.event(number)) }
    let flushing = Task { await tracker.flush() }
    #expect(await requestHeld(on: serverClock), "the upload reached the Sandbox")

    for number in 3..<8 { try await tracker.track(EventsSandbox.event(number)) }
    #expect(tracker.status.dropped == 3 && tracker.status.pending == 5, "\(tracker.status)")
    await serverClock.advance(by: .seconds(1))
    _ = await flushing.value
    let report = await tracker.flush()

    #expect(report.status.pending == 0, "\(report)")
    #expect(try await tracker.queue.count() == 0)
    #expect(try await EventsSandbox.storedEventIds(on: sandbox) == Set((0..<8).map(EventsSandbox.eventId)))
    await tracker.shutDown()
    await sandbox.stop()
  }

  @Test(
    "A batch the Sandbox refuses as malformed (400) is split until the one event is found, set aside with the reason; the rest arrive",
    arguments: TransportKind.allCases)
  func isolatesAMalformedEvent(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = eventsTemporaryDirectory("events-400")
    defer { try? FileManager.default.removeItem(at: directory) }
    // Three refusals: the batch of four, then its first half, then that half's first event alone.
    try await sandbox.control.addFault(
      SandboxFault(route: "/v1/events/batch", method: "POST", status: 400, count: 3))
    let tracker = try tracker(on: sandbox, kind, in: directory) { $0.deliversOnItsOwn = false }
    for number in 0..<4 { try await tracker.track(EventsSandbox.event(number)) }

    let report = await tracker.flush()
    #expect(report.delivered == 3 && report.setAside.map { $0.event?.name } == ["event_0"], "\(report)")
    #expect(report.setAside.first?.reason == "HTTP 400: Injected fault.", "the server's own words")
    #expect(try await EventsSandbox.storedEventIds(on: sandbox) == Set((1..<4).map(EventsSandbox.eventId)))
    await tracker.shutDown()
    await sandbox.stop()
  }

  @Test(
    "A 200 that is not the API's receipt deletes nothing: the events wait for a retry, and then arrive",
    arguments: TransportKind.allCases)
  func aForeignSuccessIsRetried(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = eventsTemporaryDirectory("events-foreign-200")
    defer { try? FileManager.default.removeItem(at: directory) }
    // The injected 200 carries the route's error body, `{"errorCode":"E200",…}`, not `{"success":true}`.
    try await sandbox.control.addFault(
      SandboxFault(route: "/v1/events/batch", method: "POST", status: 200, count: 1))
    let tracker = try tracker(on: sandbox, kind, in: directory) { $0.deliversOnItsOwn = false }
    for number in 0..<2 { try await tracker.track(EventsSandbox.event(number)) }

    let refused = await tracker.flush()
    #expect(refused.delivered == 0 && refused.status.pending == 2 && refused.status.nextRetry != nil, "\(refused)")
    #expect(try await tracker.queue.count() == 2)
    let report = await tracker.flush()
    #expect(report.delivered == 2, "\(report)")
    #expect(try await EventsSandbox.stats(on: sandbox).unique == 2)
    await tracker.shutDown()
    await sandbox.stop()
  }

  @Test(
    "In Segment's format, 30 events of 30 KB go in batches within Segment's 500 KB, none refused by the Sandbox",
    arguments: TransportKind.allCases)
  func segmentBatchLimit(_ kind: TransportKind) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = eventsTemporaryDirectory("events-segment-limit")
    defer { try? FileManager.default.removeItem(at: directory) }
    let tracker = try tracker(on: sandbox, kind, in: directory) {
      $0.wireFormat = .segment
      $0.deliversOnItsOwn = false
    }
    let text = String(repeating: "x", count: 30_000)
    for number in 0..<30 {
      try await tracker.track(AnalyticsEvent(name: "large_\(number)", properties: ["text": .string(text)]))
    }

    let report = await tracker.flush()
    #expect(report.delivered == 30 && report.status.pending == 0, "\(report)")
    let accepted = try await sandboxResponses("POST /v1/batch", status: 200, on: sandbox)
    #expect(accepted >= 2, "900 KB cannot go in one batch: \(accepted)")
    #expect(try await sandboxResponses("POST /v1/batch", status: 400, on: sandbox) == 0)
    #expect(try await EventsSandbox.storedEvents(on: sandbox).count == 30)
    await tracker.shutDown()
    await sandbox.stop()
  }
}
