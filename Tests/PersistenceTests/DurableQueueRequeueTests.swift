import Foundation
import Testing

@testable import Persistence

/// REQUIREMENTS E11, E12: dead letters go back into delivery; a withdrawn consent empties the queue.
@Suite("DurableQueue re-queue and purge", .timeLimit(.minutes(3)))
struct DurableQueueRequeueTests {
  struct Event: Codable, Sendable, Equatable {
    var name: String
  }

  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-requeue-\(UUID().uuidString)")

  func open(capacity: Int = 100) throws -> DurableQueue<Event> {
    try DurableQueue<Event>(
      url: directory.appendingPathComponent("events.sqlite"), capacity: capacity, overflow: .rejectNew,
      now: { Date(timeIntervalSince1970: 1_700_000_000) })
  }

  @Test(
    "Re-queued dead letters go to the back, due at once with no attempts, across reopening; unknown ids are ignored")
  func requeue() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    var queue = try open()
    let ids = try await queue.enqueue(contentsOf: ["a", "b", "c"].map(Event.init)).ids
    try await queue.release([ids[0]], retryAt: .distantFuture)
    try await queue.deadLetter([ids[0], ids[1]], reason: "HTTP 400: bad")
    try await queue.enqueue(Event(name: "d"))
    #expect(try await queue.requeueDeadLetters([ids[1], 999]) == 1)
    #expect(try await queue.deadLetters(limit: 10).map(\.element?.name) == ["a"])

    queue = try open()
    #expect(try await queue.requeueAllDeadLetters() == 1)
    let pending = try await queue.peek(limit: 10)
    #expect(pending.map(\.element.name) == ["c", "d", "b", "a"])
    #expect(pending.allSatisfy { $0.attempts == 0 && $0.notBefore == nil })
    #expect(pending.map(\.id) == pending.map(\.id).sorted() && !pending.map(\.id).contains(ids[0]))
    let statistics = try await queue.statistics()
    #expect(statistics.pending == 4 && statistics.deadLetters == 0)
  }

  @Test("Dead letters that would pass the capacity stay where they are, all of them, with a typed error")
  func requeueOverCapacity() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let queue = try open(capacity: 3)
    let ids = try await queue.enqueue(contentsOf: ["a", "b", "c"].map(Event.init)).ids
    try await queue.deadLetter([ids[0], ids[1]], reason: "refused")
    try await queue.enqueue(Event(name: "d"))
    let error = await #expect(throws: PersistenceError.self) { try await queue.requeueAllDeadLetters() }
    #expect(error?.kind == .capacityExceeded)
    #expect(try await queue.deadLetterCount() == 2)
    #expect(try await queue.count() == 2)
  }

  @Test("Removing every pending element leaves the dead letters and the counters' other totals")
  func removeAllPending() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let queue = try open()
    let ids = try await queue.enqueue(contentsOf: ["a", "b", "c"].map(Event.init)).ids
    try await queue.deadLetter([ids[2]], reason: "refused")
    #expect(try await queue.removeAllPending() == 2)
    #expect(try await queue.count() == 0)
    #expect(try await queue.peek(limit: 10).isEmpty)
    #expect(try await queue.deadLetterCount() == 1)
    try await queue.enqueue(Event(name: "e"))
    #expect(try await queue.count() == 1)
  }

  @Test(
    "Encoded payloads enqueue on the calling thread or suspending, in order, capped; one that is not JSON is set aside")
  func encodedPayloads() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let queue = try open(capacity: 3)
    try queue.enqueueNow(encoded: [Data(#"{"name":"a"}"#.utf8), Data("not json".utf8)])
    try await queue.enqueue(encoded: [Data(#"{"name":"c"}"#.utf8)])
    let error = #expect(throws: PersistenceError.self) { try queue.enqueueNow(encoded: [Data(#"{"name":"d"}"#.utf8)]) }
    #expect(error?.kind == .capacityExceeded)
    #expect(try await queue.peek(limit: 10).map(\.element.name) == ["a", "c"])
    #expect(try await queue.deadLetters(limit: 10).map(\.payload) == [Data("not json".utf8)])
  }

  @Test("An element enqueued on the calling thread is encoded as a suspending enqueue would, in order, capped")
  func elementNow() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let queue = try open(capacity: 2)
    try queue.enqueueNow(Event(name: "a"))
    try await queue.enqueue(Event(name: "b"))
    let error = #expect(throws: PersistenceError.self) { try queue.enqueueNow(Event(name: "c")) }
    #expect(error?.kind == .capacityExceeded)
    #expect(try await queue.peek(limit: 10).map(\.element) == [Event(name: "a"), Event(name: "b")])
  }
}
