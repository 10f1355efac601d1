import Clocks
import Foundation
import Networking
import Persistence
import TestSupport
import Testing

@testable import Domain

/// REQUIREMENTS E4, E6: failures, backoff, dead letters, connectivity.
/// `EventTrackerRefusalTests`, `EventTrackerFaultTests` and `EventTrackerOutageTests` show the 413 split, Retry-After,
/// the explicit flush, dropped connections and 503s until success against the Sandbox; `EventTrackerDeliveryTests` a
/// malformed event isolated and a 200 that is not a receipt. Only here: exact retry instants
/// (a test clock), a proxy's bare 400 and a captive portal's HTML 200 that the Sandbox never sends, a transport's own
/// cancellation, the device clock going back and the device going offline.
@Suite(.timeLimit(.minutes(3))) struct EventTrackerRetryTests {
  @Test("A 503 is retried after a jittered, doubling delay; success clears the error")
  func backoffSchedule() async throws {
    // GIVEN three failures in a row, and the jitter drawing 0.5 every time
    let harness = try EventsHarness(random: 0.5)
    harness.server.script(.status(503), .status(503), .status(503))
    try await harness.track(2)

    // WHEN flushed, THEN each failure waits half of 1 s, 2 s, 4 s
    await harness.tracker.flush()
    var expected = harness.now
    for delay in [0.5, 1.0, 2.0] {
      expected = expected.addingTimeInterval(delay)
      #expect(await eventually { harness.tracker.status.nextRetry == expected }, "retry \(delay) s later")
      #expect(harness.tracker.status.lastError != nil)
      #expect(await harness.clock.sleeperArrived())
      await harness.clock.advance(by: .milliseconds(Int64(delay * 1_000) - 1))
      await settle()
      let uploadsSoFar = harness.server.uploads.count
      await harness.clock.advance(by: .milliseconds(1))
      #expect(await eventually { harness.server.uploads.count == uploadsSoFar + 1 }, "not a moment early")
    }
    #expect(await eventually { harness.tracker.status.delivered == 2 })
    #expect(harness.tracker.status.lastError == nil)
    #expect(harness.tracker.status.nextRetry == nil)
    await harness.tracker.shutDown()
  }

  @Test("An explicit flush while a failed upload waits for its retry date sends at once; automatic delivery waits")
  func explicitFlushSendsNow() async throws {
    // GIVEN an upload that failed, so the event waits for a retry date
    let harness = try EventsHarness(random: 0.5)
    harness.server.script(.status(503))
    try await harness.track(1)
    await harness.tracker.flush()
    #expect(harness.tracker.status.nextRetry == harness.now.addingTimeInterval(0.5))
    #expect(harness.tracker.status.lastFailure?.kind == .server)
    #expect(harness.tracker.status.lastFailure?.statusCode == 503)

    // WHEN the app flushes again before that date, on a clock that has not moved
    await harness.tracker.flush()

    // THEN it was sent at once, and the failure is cleared
    #expect(harness.tracker.status.delivered == 1)
    #expect(harness.server.uploads.count == 2)
    #expect(harness.tracker.status.lastFailure == nil)
    #expect(harness.tracker.status.nextRetry == nil)
    await harness.tracker.shutDown()
  }

  @Test("Retry-After is honoured when it is longer than the backoff")
  func retryAfter() async throws {
    let harness = try EventsHarness()
    harness.server.script(.status(429, headers: ["Retry-After": "7"]))
    try await harness.track(1)
    await harness.tracker.flush()
    #expect(harness.tracker.status.nextRetry == harness.now.addingTimeInterval(7))
    await harness.tracker.shutDown()
  }

  @Test("The delay is a random share of base × 2^(n−1), capped, never below a server's Retry-After")
  func backoffBounds() {
    let base = Duration.seconds(1)
    let cap = Duration.seconds(300)
    for attempt in 1...20 {
      let ceiling = min(cap, base * (1 << (attempt - 1)))
      for random in [0.0, 0.25, 0.999] {
        let delay = DeliveryBackoff.delay(attempt: attempt, base: base, max: cap, retryAfter: nil, random: random)
        #expect(delay >= .zero && delay <= ceiling)
        #expect(delay == ceiling * random)
      }
    }
    #expect(
      DeliveryBackoff.delay(attempt: 1, base: base, max: cap, retryAfter: .seconds(9), random: 0.5) == .seconds(9))
    #expect(
      DeliveryBackoff.delay(attempt: 1, base: base, max: cap, retryAfter: .seconds(99_999), random: 0.5)
        == .seconds(3_600))
    #expect(DeliveryBackoff.delay(attempt: 1_000, base: base, max: cap, retryAfter: nil, random: 0.5) == .seconds(150))
  }

  @Test("A transport failure is retried like a 5xx")
  func transportFailure() async throws {
    let harness = try EventsHarness()
    harness.server.script(.offline)
    try await harness.track(1)
    await harness.tracker.flush()
    #expect(harness.tracker.status.lastError != nil)
    #expect(await harness.clock.sleeperArrived())
    await harness.clock.advance(by: .seconds(1))
    #expect(await eventually { harness.tracker.status.delivered == 1 })
    await harness.tracker.shutDown()
  }

  @Test("A batch refused as too large is split until it fits; every event is delivered in order")
  func split413() async throws {
    let harness = try EventsHarness()
    harness.server.always(.tooLargeAbove(2))
    try await harness.track(5)
    await harness.tracker.flush()
    #expect(harness.tracker.status.delivered == 5)
    #expect(harness.tracker.status.deadLettered == 0)
    #expect(harness.server.uploads.filter { $0.count <= 2 }.flatMap { $0 } == ["e0", "e1", "e2", "e3", "e4"])
    await harness.tracker.shutDown()
  }

  @Test("An event still refused as too large alone, while the rest of its batch goes, is dead-lettered with the reason")
  func single413() async throws {
    let harness = try EventsHarness()
    harness.server.always(.tooLarge("e1"))
    try await harness.track(3)
    await harness.tracker.flush()
    #expect(harness.tracker.status.deadLettered == 1)
    #expect(harness.tracker.status.delivered == 2)
    #expect(harness.tracker.status.pending == 0)
    let letters = try await harness.tracker.queue.deadLetters(limit: 10)
    #expect(letters.map { $0.element?.name } == ["e1"])
    #expect(letters.allSatisfy { $0.reason.contains("413") && $0.reason.contains("e1 is too large") })
    await harness.tracker.shutDown()
  }

  @Test("A server that refuses every upload without a reason of its own (a proxy's 400) gets retries, no dead letters")
  func refusingEverything() async throws {
    let harness = try EventsHarness()
    harness.server.always(.proxy(400))
    try await harness.track(4)
    await harness.tracker.flush()
    #expect(harness.tracker.status.deadLettered == 0)
    #expect(harness.tracker.status.pending == 4)
    #expect(harness.tracker.status.lastError != nil)
    #expect(harness.tracker.status.nextRetry != nil)
    #expect(try await harness.tracker.queue.deadLetterCount() == 0)
    await harness.tracker.shutDown()
  }

  @Test("A 200 that is not the API's receipt for every event deletes nothing: it is retried")
  func foreignSuccess() async throws {
    let harness = try EventsHarness()
    harness.server.script(.html200)
    try await harness.track(2)
    await harness.tracker.flush()
    #expect(harness.tracker.status.delivered == 0)
    #expect(try await harness.tracker.queue.count() == 2)
    #expect(harness.tracker.status.nextRetry != nil)
    await harness.tracker.shutDown()
  }

  @Test("A transport's own cancellation is a failure to retry, not a stop")
  func transportCancellation() async throws {
    let harness = try EventsHarness()
    harness.server.script(.cancelled)
    try await harness.track(1)
    await harness.tracker.flush()
    #expect(harness.tracker.status.nextRetry != nil)
    #expect(await harness.clock.sleeperArrived())
    await harness.clock.advance(by: .seconds(1))
    #expect(await eventually { harness.tracker.status.delivered == 1 })
    await harness.tracker.shutDown()
  }

  @Test("Retry dates further than any delay (the clock went back) are due at once, not in a year")
  func clockWentBack() async throws {
    let clock = TestClock()
    let first = try EventsHarness(clock: clock)
    try await first.track(1)
    await first.tracker.shutDown()
    let ids = try await first.tracker.queue.peek(limit: 1).map(\.id)
    try await first.tracker.queue.release(ids, retryAt: first.now.addingTimeInterval(365 * 24 * 3_600))

    let second = try EventsHarness(queueURL: first.queueURL, clock: clock, origin: first.start)
    #expect(await eventually { second.tracker.status.delivered == 1 })
    await second.tracker.shutDown()
  }

  @Test("A malformed event (400) is isolated and dead-lettered with the server's message; the rest go")
  func malformed400() async throws {
    let harness = try EventsHarness()
    harness.server.always(.malformed("e2"))
    try await harness.track(4)
    await harness.tracker.flush()
    #expect(harness.tracker.status.delivered == 3)
    #expect(harness.tracker.status.deadLettered == 1)
    let letter = try #require(try await harness.tracker.queue.deadLetters(limit: 10).first)
    #expect(letter.element?.name == "e2")
    #expect(letter.reason.contains("Bad event e2"))
    await harness.tracker.shutDown()
  }

  @Test("The retry date is stored with the events: a restart neither forgets nor hammers")
  func retryStateSurvivesRestart() async throws {
    // GIVEN an upload refused with Retry-After: 60, then the tracker gone
    let clock = TestClock()
    let first = try EventsHarness(clock: clock)
    first.server.script(.status(503, headers: ["Retry-After": "60"]))
    try await first.track(2)
    await first.tracker.flush()
    await first.tracker.shutDown()
    #expect(first.server.uploads.count == 1)

    // WHEN a new tracker opens the file 10 s later
    await clock.advance(by: .seconds(10))
    let second = try EventsHarness(queueURL: first.queueURL, clock: clock, origin: first.start)

    // THEN it sends nothing before the stored date, and everything after it
    #expect(await clock.sleeperArrived())
    await settle()
    #expect(second.server.uploads.isEmpty)
    let queued = try await second.tracker.queue.peek(limit: 10, now: .distantFuture)
    #expect(queued.allSatisfy { $0.attempts == 1 })
    await clock.advance(by: .seconds(50))
    #expect(await eventually { second.tracker.status.delivered == 2 })
    await second.tracker.shutDown()
  }

  @Test("Offline, nothing is tried; back online, everything pending goes at once (E6)")
  func offlinePauseResume() async throws {
    let monitor = ManualNetworkMonitor(.offline)
    let harness = try EventsHarness(monitor: monitor)
    try await harness.track(3)
    await harness.tracker.flush()
    #expect(harness.server.uploads.isEmpty)
    #expect(harness.tracker.status.isOnline == false)

    monitor.status = .online
    #expect(await eventually { harness.tracker.status.delivered == 3 })
    #expect(harness.tracker.status.isOnline)
    await harness.tracker.shutDown()
  }

  @Test("The status stream starts with the current status and follows every change (E8)")
  func statusStream() async throws {
    let harness = try EventsHarness()
    var updates = harness.tracker.deliveryStatus.makeAsyncIterator()
    #expect(await updates.next()?.pending == 0)
    try await harness.track(1)
    await harness.tracker.flush()
    var last: DeliveryStatus?
    while let next = await updates.next() {
      last = next
      if next.delivered == 1 { break }
    }
    #expect(last?.pending == 0)
    await harness.tracker.shutDown()
  }
}
