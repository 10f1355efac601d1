import Clocks
import Foundation
import Persistence
import TestSupport
import Testing

@testable import Domain

/// REQUIREMENTS E2, E3, E5: what goes up when, in which batches.
/// Against the Sandbox, `EventTrackerRefusalTests` shows the count and byte limits, `EventTrackerFaultTests` events
/// tracked from eight tasks arriving once each, `EventTrackerCrashTests` a returned track surviving a kill. Only here:
/// the flush triggers' instants (a test clock) and the queue's rules (capacity, validation, a cancelled track), which
/// act before any upload. `EventTrackerDeliveryTests` has leftovers sent at start and an overflow during a held upload.
@Suite(.timeLimit(.minutes(3))) struct EventTrackerBatchingTests {
  @Test("track returns with the event on disk: a second tracker on the file sees it pending")
  func durableBeforeReturn() async throws {
    let harness = try EventsHarness()
    try await harness.track(2)
    #expect(try await harness.tracker.queue.count() == 2)
    #expect(harness.tracker.status.pending == 2)
    #expect(harness.server.uploads.isEmpty, "tracking never waits for the network")
    await harness.tracker.shutDown()
  }

  @Test("Reaching flushCount uploads at once, without a flush; fewer wait")
  func flushCountTrigger() async throws {
    let harness = try EventsHarness(configuration: EventTrackerConfiguration(flushCount: 5))
    try await harness.track(4)
    await settle()
    #expect(harness.server.uploads.isEmpty)
    try await harness.tracker.track(AnalyticsEvent(name: "e4"))
    #expect(await eventually { harness.tracker.status.delivered == 5 })
    #expect(harness.server.uploads == [["e0", "e1", "e2", "e3", "e4"]])
    await harness.tracker.shutDown()
  }

  @Test("Every flushInterval, whatever is pending goes up")
  func intervalTrigger() async throws {
    let harness = try EventsHarness(configuration: EventTrackerConfiguration(flushInterval: .seconds(30)))
    try await harness.track(2)
    #expect(await harness.clock.sleeperArrived())
    await harness.clock.advance(by: .seconds(29))
    await settle()
    #expect(harness.server.uploads.isEmpty)
    await harness.clock.advance(by: .seconds(1))
    #expect(await eventually { harness.tracker.status.delivered == 2 })
    await harness.tracker.shutDown()
  }

  @Test("flush() returns once everything due is delivered, in batches of maxBatchCount, oldest first")
  func flushInBatches() async throws {
    let harness = try EventsHarness(configuration: EventTrackerConfiguration(maxBatchCount: 3))
    try await harness.track(7)
    await harness.tracker.flush()
    #expect(harness.server.uploads.map(\.count) == [3, 3, 1])
    #expect(harness.server.uploaded == (0..<7).map { "e\($0)" })
    #expect(harness.tracker.status.pending == 0)
    #expect(harness.tracker.status.delivered == 7)
    #expect(try await harness.tracker.queue.count() == 0, "acknowledged events are deleted")
    await harness.tracker.shutDown()
  }

  @Test("A batch stays under maxBatchBytes")
  func byteLimit() async throws {
    // Room for one largest event (its context carries the built-in enrichment), and a few of these.
    let configuration = EventTrackerConfiguration(maxBatchBytes: 6_000, maxNameLength: 10, maxPropertiesBytes: 100)
    let harness = try EventsHarness(configuration: configuration)
    for index in 0..<12 {
      try await harness.tracker.track(
        AnalyticsEvent(name: "e\(index)", properties: ["text": .string(String(repeating: "x", count: 80))]))
    }
    await harness.tracker.flush()
    #expect(harness.server.uploads.count > 1)
    #expect(harness.server.sizes.allSatisfy { $0 <= 6_000 })
    #expect(harness.server.uploaded == (0..<12).map { "e\($0)" })
    await harness.tracker.shutDown()
  }

  @Test("Events left by an earlier run are delivered at start, with no flush (E3, E7)")
  func leftoversAtStart() async throws {
    let first = try EventsHarness(configuration: EventTrackerConfiguration(flushCount: 100))
    try await first.track(3)
    await first.tracker.shutDown()
    #expect(first.server.uploads.isEmpty)

    let second = try EventsHarness(queueURL: first.queueURL)
    #expect(await eventually { second.tracker.status.delivered == 3 })
    #expect(second.server.uploaded == ["e0", "e1", "e2"])
    await second.tracker.shutDown()
  }

  @Test("A tracker that does not deliver on its own uploads nothing, leftovers and count included, until flush")
  func onlyOnFlush() async throws {
    let first = try EventsHarness(configuration: EventTrackerConfiguration(flushCount: 100))
    try await first.track(3)
    await first.tracker.shutDown()

    let manual = EventTrackerConfiguration(flushCount: 2, deliversOnItsOwn: false)
    let second = try EventsHarness(configuration: manual, queueURL: first.queueURL)
    try await second.track(2, prefix: "new")  // crosses the flush count
    #expect(await second.tracker.loadedStatus.pending == 5)
    await settle()
    #expect(second.server.uploads.isEmpty, "neither the leftovers nor the count started an upload")

    await second.tracker.flush()
    #expect(second.server.uploaded == ["e0", "e1", "e2", "new0", "new1"])
    #expect(second.tracker.status.pending == 0)
    await second.tracker.shutDown()
  }

  @Test("Past the capacity the oldest are dropped, counted in the status and on disk (E5)")
  func capacity() async throws {
    let harness = try EventsHarness(configuration: EventTrackerConfiguration(capacity: 3))
    try await harness.track(5)
    #expect(harness.tracker.status.dropped == 2)
    #expect(harness.tracker.status.pending == 3)
    await harness.tracker.flush()
    #expect(harness.server.uploaded == ["e2", "e3", "e4"])
    #expect(try await harness.tracker.queue.statistics().dropped == 2)
    await harness.tracker.shutDown()
  }

  @Test("Events dropped by the overflow while their upload is in flight are not taken off pending twice")
  func overflowDuringUpload() async throws {
    // GIVEN an upload of three events held at the server
    let harness = try EventsHarness(configuration: EventTrackerConfiguration(capacity: 5))
    harness.server.gate.close()
    try await harness.track(3, prefix: "old")
    let flushing = Task { await harness.tracker.flush() }
    #expect(await eventually { harness.server.gate.waitingCount == 1 })

    // WHEN five more are tracked, dropping the three in flight, and the upload is then acknowledged
    try await harness.track(5, prefix: "new")
    #expect(harness.tracker.status.dropped == 3)
    #expect(harness.tracker.status.pending == 5)
    harness.server.gate.open()
    _ = await flushing.value

    // THEN pending still counts the five on disk, and they go next
    #expect(await eventually { harness.tracker.status.delivered >= 3 })
    await harness.tracker.flush()
    #expect(harness.tracker.status.pending == 0)
    #expect(try await harness.tracker.queue.count() == 0)
    await harness.tracker.shutDown()
  }

  @Test("Under the reject-new policy a full queue refuses the event with a typed error")
  func rejectNew() async throws {
    let harness = try EventsHarness(configuration: EventTrackerConfiguration(capacity: 2, overflow: .rejectNew))
    try await harness.track(2)
    let error = await #expect(throws: EventTrackerError.self) {
      try await harness.tracker.track(AnalyticsEvent(name: "late"))
    }
    #expect(error?.kind == .queueFull)
    await harness.tracker.shutDown()
  }

  @Test("Concurrent tracks share transactions and every one of them is stored, counted once")
  func concurrentTracks() async throws {
    let harness = try EventsHarness(configuration: EventTrackerConfiguration(flushCount: 1_000))
    let tracker = harness.tracker
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<200 { group.addTask { try await tracker.track(AnalyticsEvent(name: "c\(index)")) } }
      try await group.waitForAll()
    }
    #expect(try await tracker.queue.count() == 200)
    #expect(tracker.status.pending == 200)
    await tracker.flush()
    #expect(Set(harness.server.uploaded) == Set((0..<200).map { "c\($0)" }))
    await tracker.shutDown()
  }

  @Test("Under reject-new, concurrent tracks past the capacity: exactly the capacity is stored")
  func concurrentRejectNew() async throws {
    let harness = try EventsHarness(configuration: EventTrackerConfiguration(capacity: 3, overflow: .rejectNew))
    let tracker = harness.tracker
    let outcomes = await withTaskGroup(of: Bool.self) { group in
      for index in 0..<5 {
        group.addTask { (try? await tracker.track(AnalyticsEvent(name: "r\(index)"))) != nil }
      }
      return await group.reduce(into: [Bool]()) { $0.append($1) }
    }
    #expect(outcomes.filter { $0 }.count == 3)
    #expect(try await tracker.queue.count() == 3)
    await tracker.shutDown()
  }

  @Test("Bad events are refused before anything is stored")
  func validation() async throws {
    let harness = try EventsHarness(configuration: EventTrackerConfiguration(maxNameLength: 10, maxPropertiesBytes: 50))
    let bad = [
      AnalyticsEvent(name: ""), AnalyticsEvent(name: "  "), AnalyticsEvent(name: String(repeating: "n", count: 11)),
      AnalyticsEvent(name: "nan", properties: ["x": .number(.nan)]),
      AnalyticsEvent(name: "big", properties: ["x": .string(String(repeating: "b", count: 60))]),
    ]
    for event in bad {
      let error = await #expect(throws: EventTrackerError.self) { try await harness.tracker.track(event) }
      #expect(error?.kind == .invalidEvent)
    }
    #expect(try await harness.tracker.queue.count() == 0)
    await harness.tracker.shutDown()
  }

  @Test("A track whose task is cancelled still stores its event")
  func cancelledTrackStores() async throws {
    let harness = try EventsHarness()
    let tracker = harness.tracker
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      try await tracker.track(AnalyticsEvent(name: "kept"))
    }
    try await task.value
    #expect(try await tracker.queue.count() == 1)
    await tracker.shutDown()
  }

  @Test("Sent events carry their eventId, in the API's shape (E9)")
  func wireFormat() throws {
    let id = UUID(uuidString: "00000000-0000-4000-8000-000000000007")!
    let event = AnalyticsEvent(
      name: "open", properties: ["n": 1, "ok": true, "tags": ["a"], "none": nil],
      timestamp: Date(timeIntervalSince1970: 1.5), eventId: id)
    let json = String(decoding: try EventsRouter.encode(event), as: UTF8.self)
    #expect(
      json == #"{"eventId":"00000000-0000-4000-8000-000000000007","name":"open","#
        + #""properties":{"n":1,"none":null,"ok":true,"tags":["a"]},"timestamp":1500}"#)
  }
}
