import Domain
import Foundation
import Logging
import Networking
import Persistence
import Sandbox
import Testing

/// REQUIREMENTS E2, E4, E8 over real HTTP: while the server refuses every upload, events keep being tracked and wait
/// on disk, the status says why; once the server is back, every one of them arrives and the error clears.
@Suite("EventTracker through a server outage", .timeLimit(.minutes(3)))
struct EventTrackerOutageTests {
  static let total = 300

  @Test(
    "Events tracked while every upload gets a 503 all arrive once the outage ends; lastError is set, then cleared",
    arguments: TransportKind.allCases)
  func everyEventArrivesAfterAnOutage(_ kind: TransportKind) async throws {
    // GIVEN a Sandbox that answers every upload with 503
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    try await EventsSandbox.refuseUploads(status: 503, rate: 1, on: sandbox)
    let directory = eventsTemporaryDirectory("events-outage")
    defer { try? FileManager.default.removeItem(at: directory) }
    // Uploads as long as a loaded machine needs: one timed out at `fastDelivery`'s 2 s would be the status's last
    // error in place of the server's 503.
    let tracker = try EventsSandbox.tracker(on: sandbox, kind, in: directory)

    // WHEN events are tracked before and after the first refusals
    try await track(0..<Self.total / 2, on: tracker)
    let failing = try await eventsPoll(timeout: .seconds(20)) { tracker.status.lastError != nil }
    try await track(Self.total / 2..<Self.total, on: tracker)
    // Retries go on through the outage: a few more refusals, each after a backoff of at most 200 ms.
    let refusedBefore = try await EventsSandbox.uploads(answered: 503, on: sandbox)
    let retried = try await eventsPoll(timeout: .seconds(20)) {
      try await EventsSandbox.uploads(answered: 503, on: sandbox) >= refusedBefore + 3
    }

    // THEN nothing arrived, everything waits, and the status says why
    let during = tracker.status
    #expect(failing && retried, "refusals seen: \(refusedBefore); status \(during)")
    #expect(during.lastError?.contains("HTTP 503") == true, "\(during)")
    #expect(during.pending == Self.total, "\(during)")
    #expect(during.delivered == 0, "\(during)")
    #expect(try await EventsSandbox.stats(on: sandbox).unique == 0)

    // WHEN the outage ends
    try await EventsSandbox.removeFaults(on: sandbox)
    let drained = try await eventsPoll(timeout: .seconds(20)) {
      await tracker.flush()
      return try await tracker.queue.count() == 0
    }
    let after = tracker.status
    await tracker.shutDown()

    // THEN every event arrives, once, and the error is gone
    #expect(drained, "\(after)")
    #expect(after.pending == 0 && after.delivered == Self.total, "\(after)")
    #expect(after.lastError == nil, "\(after)")
    #expect(after.nextRetry == nil, "\(after)")
    let stats = try await EventsSandbox.stats(on: sandbox)
    #expect(stats.unique == Self.total, "\(stats)")
    #expect(try await EventsSandbox.storedEventIds(on: sandbox) == Set((0..<Self.total).map(EventsSandbox.eventId)))
    await sandbox.stop()
  }

  /// Tracks the events numbered in `numbers` from four tasks.
  private func track(_ numbers: Range<Int>, on tracker: EventTracker) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
      for worker in 0..<4 {
        group.addTask {
          for number in stride(from: numbers.lowerBound + worker, to: numbers.upperBound, by: 4) {
            try await tracker.track(EventsSandbox.event(number))
          }
        }
      }
      try await group.waitForAll()
    }
  }
}
