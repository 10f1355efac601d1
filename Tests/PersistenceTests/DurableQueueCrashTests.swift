import Foundation
import KeelRandom
import Persistence
import TestSupport
import Testing

/// REQUIREMENTS E2, E3: a child process enqueues 10,000 items and is killed with SIGKILL at random moments, again and
/// again on the same database; after each kill every item it reported as committed is present exactly once, in
/// FIFO order, and the database passes `PRAGMA integrity_check`.
@Suite("DurableQueue survives SIGKILL", .timeLimit(.minutes(3)))
struct DurableQueueCrashTests {
  static let total = 10_000
  static let killRounds = 30
  static let perRound = 1_000

  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-queue-crash-\(UUID().uuidString)")

  @Test("Every committed item is present exactly once, in order, after each SIGKILL; the file stays intact")
  func killedAtRandomMoments() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let child = DurableQueueCrashChild(database: directory.appendingPathComponent("queue.sqlite"))
    var random = SplitMix64(seed: 0xD0AB_1E0F)
    var reported: Set<Int> = []
    var stored = 0
    var kills = 0
    for round in 0...Self.killRounds {
      // GIVEN a child resuming after the last committed item, WHEN it is killed at a random moment: mostly inside
      // an enqueue after a random number of items, every fifth round while it starts and opens the database; in
      // the last round it is left to finish
      let kill: DurableQueueCrashChild.Kill =
        if round == Self.killRounds {
          .never
        } else if round % 5 == 0 {
          .after(.milliseconds(5 + Int(random.nextUnit() * 60)))
        } else {
          .afterReporting(20 + Int(random.nextUnit() * 280), thenMicroseconds: UInt32(random.nextUnit() * 4_000))
        }
      // A round writes at most `perRound` items, so that a kill that lands late (a loaded machine, TSan) costs one
      // round, not the rest of the run.
      // The killed rounds stop short of the last item, so that the final round, never killed, always has one to
      // enqueue and report: a kill after the last commit but before its report would otherwise leave none.
      let end = round == Self.killRounds ? Self.total : min(Self.total - 1, stored + Self.perRound)
      let outcome = try await child.run(first: stored, end: end, seed: random.next(), killing: kill)
      if outcome.killed {
        #expect(outcome.status == SIGKILL)
        kills += 1
      } else {
        #expect(outcome.status == 0, "the child failed: \(outcome.errors)")
      }
      reported.formUnion(outcome.reported)

      // THEN the database holds exactly 0..<n, in id order, with every reported number among them
      let sequences = try await Self.storedSequences(child.database)
      #expect(sequences == Array(0..<sequences.count), "no loss, no duplicate, FIFO")
      #expect(sequences.count > (reported.max() ?? -1), "every reported item is present")
      try #require(sequences.count >= stored, "committed items never disappear")
      stored = sequences.count
    }
    #expect(stored == Self.total)
    #expect(reported.max() == Self.total - 1)
    // Most kills land inside an enqueue; on a loaded machine a few children finish their round first.
    #expect(kills >= Self.killRounds / 2, "only \(kills) of \(Self.killRounds) kills landed")
  }

  /// Opens the queue as the restarted app would, checks the file, and returns the stored sequence numbers in id
  /// order, asserting that ids increase.
  private static func storedSequences(_ url: URL) async throws -> [Int] {
    let queue = try DurableQueue<DurableQueueCrashChild.Record>(url: url, capacity: 1_000_000, overflow: .rejectNew)
    try await queue.integrityCheck()
    let items = try await queue.peek(limit: Int.max)
    #expect(zip(items, items.dropFirst()).allSatisfy { $0.id < $1.id })
    #expect(try await queue.count() == items.count)
    return items.map(\.element.sequence)
  }
}
