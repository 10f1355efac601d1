import Clocks
import Foundation
import Networking
import Persistence
import TestSupport
import Testing

@testable import Domain

/// REQUIREMENTS E12: events the server refuses on their own are set aside with its reason, reported, and can go back;
/// `drain(timeout:)`. `EventTrackerRefusalTests` (a lone 413) and the CLI's `EventsDeadLetterCommandTests` (a lone 400,
/// requeued and delivered by a later process) show this against the Sandbox; `EventTrackerSegmentTests` drains there.
/// Only here: a drain that follows the device back online or runs out its deadline (a network monitor, a test clock).
@Suite("EventTracker dead letters, flush reports and drain", .timeLimit(.minutes(3)))
struct EventTrackerDeadLetterTests {
  @Test("A lone event refused with the server's reason (400, or 413 alone) is set aside at once, not retried forever")
  func loneRefusal() async throws {
    for answer in [FakeIngestion.Answer.malformed("e0"), .tooLarge("e0")] {
      let harness = try EventsHarness()
      harness.server.always(answer)
      try await harness.track(1)
      let report = await harness.tracker.flush()
      #expect(report.setAsideCount == 1 && report.delivered == 0 && report.status.pending == 0)
      #expect(!report.isComplete)
      let reason = try #require(report.setAside.first?.reason)
      #expect(reason.hasPrefix("HTTP 400") || reason.hasPrefix("HTTP 413"))
      #expect(reason.contains("e0"), "the server's own message: \(reason)")
      #expect(report.setAside.first?.event?.name == "e0")
      #expect(harness.tracker.status.nextRetry == nil)
      #expect(harness.server.uploads.count == 1, "one upload, no retry")
      #expect(try await harness.tracker.deadLetters().map { $0.event?.name } == ["e0"])
      await harness.tracker.shutDown()
    }
  }

  @Test("A flush reports what it delivered and what it set aside, with the reasons; the next flush reports its own")
  func flushReport() async throws {
    let harness = try EventsHarness()
    harness.server.always(.malformed("e2"))
    try await harness.track(4)
    let first = await harness.tracker.flush()
    #expect(first.delivered == 3 && first.setAsideCount == 1 && first.setAside.map(\.event?.name) == ["e2"])
    try await harness.tracker.track(AnalyticsEvent(name: "later"))
    let second = await harness.tracker.flush()
    #expect(second.delivered == 1 && second.setAsideCount == 0 && second.isComplete)
    await harness.tracker.shutDown()
  }

  @Test(
    "Dead letters go back into delivery, all or by id, across restarts, and are delivered once the server takes them")
  func requeue() async throws {
    let first = try EventsHarness()
    first.server.always(.malformed("e1"))
    try await first.track(3)
    await first.tracker.flush()
    #expect(first.tracker.status.deadLettered == 1)
    await first.tracker.shutDown()

    let second = try EventsHarness(queueURL: first.queueURL)
    let letters = try await second.tracker.deadLetters()
    #expect(letters.count == 1)
    #expect(try await second.tracker.requeueDeadLetters([999]) == 0)
    #expect(try await second.tracker.requeueDeadLetters(letters.map(\.id)) == 1)
    #expect(second.tracker.status.pending == 1 && second.tracker.status.deadLettered == 0)
    let report = await second.tracker.flush()
    #expect(report.delivered == 1 && report.isComplete)
    #expect(second.server.uploaded == ["e1"])
    #expect(try await second.tracker.requeueDeadLetters() == 0)
    await second.tracker.shutDown()
  }

  @Test("drain(timeout:) returns true once everything is delivered, following the uploader back online")
  func drainDelivers() async throws {
    let monitor = ManualNetworkMonitor(.offline)
    let harness = try EventsHarness(monitor: monitor)
    try await harness.track(3)
    // Offline, the drain's flush cannot deliver; the drain then follows the uploader, which sends everything once the
    // network is back. Its deadline, an hour away on the test clock, never comes.
    let drain = Task { await harness.tracker.drain(timeout: .seconds(3_600)) }
    monitor.status = .online
    #expect(await drain.value)
    #expect(harness.tracker.status.pending == 0 && harness.tracker.status.delivered == 3)
    await harness.tracker.shutDown()
  }

  @Test("drain(timeout:) returns false when the time is up first, and the events stay stored")
  func drainTimesOut() async throws {
    let harness = try EventsHarness(monitor: ManualNetworkMonitor(.offline))
    try await harness.track(2)
    let drain = Task { await harness.tracker.drain(timeout: .seconds(10)) }
    // Offline, the uploader waits for the network, not for the clock: the drain's deadline is the only sleeper.
    #expect(await harness.clock.sleeperArrived())
    await harness.clock.advance(by: .seconds(10))
    #expect(await drain.value == false)
    #expect(try await harness.tracker.queue.count() == 2)
    await harness.tracker.shutDown()
  }
}
