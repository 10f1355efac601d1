import Domain
import Foundation
import KeelRandom
import Logging
import Networking
import Persistence
import Sandbox
import TestSupport
import Testing

/// REQUIREMENTS E2, E3, E9, E14 across processes: a child tracks and uploads events and is killed with SIGKILL at
/// random moments, again and again on the same queue file; then a tracker that only delivers starts on that file, and
/// the server holds every event whose `track` returned, each once. In both durability levels: neither may lose an
/// event to a killed process.
@Suite("EventTracker survives SIGKILL", .serialized, .timeLimit(.minutes(5)))
struct EventTrackerCrashTests {
  static let total = 2_000
  /// A child is started for at most this many events, so that a kill landing late costs one round, not the run.
  static let perRound = 300
  static let maxRounds = 40

  @Test(
    "Every event whose track returned before a SIGKILL is delivered after the restart; none lost, none counted twice",
    // Under ThreadSanitizer, which looks for races rather than lost events, one level: the two, each spawning 2,000
    // events' worth of instrumented children, starved the suites running beside them. `swift test` runs both.
    arguments: underThreadSanitizer ? ["survivesCrash"] : ["survivesCrash", "survivesPowerLoss"])
  func killedWhileTrackingAndUploading(durability: String) async throws {
    // A new seed each run, or the one in a failure's message: KEEL_EVENTS_CRASH_SEED=<seed>.
    let seed =
      ProcessInfo.processInfo.environment["KEEL_EVENTS_CRASH_SEED"].flatMap { UInt64($0) }
      ?? UInt64.random(in: .min ... .max)
    var random = SplitMix64(seed: seed)
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let directory = eventsTemporaryDirectory("events-crash")
    defer { try? FileManager.default.removeItem(at: directory) }
    let queueURL = directory.appendingPathComponent("events.sqlite")
    let child = EventsCrashChild(
      queue: queueURL, baseURL: sandbox.baseURL, apiToken: EventsSandbox.apiToken, durability: durability)

    // GIVEN a child that tracks from the first number it has not reported, WHEN it is killed at a random moment:
    // mostly after a random number of tracked events, inside a later track or an upload; every third round while it
    // starts and delivers what the previous one left
    var next = 0
    var rounds = 0
    var timedKills = 0
    while next < Self.total && rounds < Self.maxRounds {
      let kill: EventsCrashChild.Kill =
        if rounds % 3 == 1 {
          .after(.milliseconds(100 + Int(random.nextUnit() * 400)))
        } else {
          .afterLines(50 + Int(random.nextUnit() * 200), thenMicroseconds: UInt32(random.nextUnit() * 5_000))
        }
      if case .after = kill { timedKills += 1 }
      let outcome = try await child.run(next..<min(Self.total, next + Self.perRound), killing: kill)
      #expect(outcome.killed && outcome.status == SIGKILL, "seed \(seed), round \(rounds): \(outcome.errors)")
      #expect(
        outcome.tracked == Array(next..<next + outcome.tracked.count),
        "seed \(seed), round \(rounds): tracked in order from \(next)")
      next += outcome.tracked.count
      rounds += 1
    }
    try #require(next == Self.total, "seed \(seed): only \(next) events tracked in \(rounds) rounds")

    // WHEN a tracker starts on the file and only delivers, each upload given as long as a loaded machine needs (two
    // seconds timed every upload out under the whole suite)
    let tracker = try EventsSandbox.tracker(on: sandbox, .urlSession, in: directory)
    let drained = try await eventsPoll(timeout: .seconds(120)) {
      await tracker.flush()
      return try await tracker.queue.count() == 0
    }
    let status = tracker.status
    try await tracker.queue.integrityCheck()
    await tracker.shutDown()

    // THEN the server holds exactly the events whose track returned: every reported one (none lost, E2, E3), and no
    // other, since each round re-tracked the event a kill cut off before it was reported, with the same id (E9)
    #expect(drained, "seed \(seed): \(status)")
    #expect(status.deadLettered == 0 && status.dropped == 0, "seed \(seed): \(status)")
    let reported = Set((0..<Self.total).map(EventsSandbox.eventId))
    let stored = try await EventsSandbox.storedEventIds(on: sandbox)
    let missing = reported.subtracting(stored)
    #expect(
      missing.isEmpty,
      "seed \(seed): \(missing.count) tracked events lost, such as \(missing.first.map(\.uuidString) ?? "-")")
    #expect(stored.isSubset(of: reported), "seed \(seed): \(stored.subtracting(reported).count) unknown events")
    let stats = try await EventsSandbox.stats(on: sandbox)
    #expect(stats.unique == Self.total, "seed \(seed): \(stats)")
    Attachment.record(
      """
      seed \(seed): \(rounds) rounds (\(timedKills) killed by time), \(Self.total) events
      server: \(stats.requests) uploads accepted, \(stats.unique) unique, \(stats.duplicates) duplicates
      final tracker: \(status)
      """, named: "event-tracker-crash.txt")
    await sandbox.stop()
  }
}
