import Foundation
import TestSupport
import Testing

@testable import Persistence

/// REQUIREMENTS E2, E3, E5: the durable queue behind the event tracker.
@Suite("DurableQueue", .timeLimit(.minutes(3)))
struct DurableQueueTests {
  struct Event: Codable, Sendable, Equatable {
    var name: String
    var value: Double = 0
  }

  static let start = Date(timeIntervalSince1970: 1_700_000_000)

  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keel-queue-\(UUID().uuidString)")
  var url: URL { directory.appendingPathComponent("events.sqlite") }

  func open<E>(
    _ type: E.Type = Event.self, capacity: Int = 1_000, overflow: OverflowPolicy = .rejectNew,
    deadLetterCapacity: Int = 1_000
  ) throws -> DurableQueue<E> {
    try DurableQueue<E>(
      url: url, capacity: capacity, overflow: overflow, deadLetterCapacity: deadLetterCapacity, now: { Self.start })
  }

  static func events(_ names: String...) -> [Event] { names.map { Event(name: $0) } }

  @Test("Elements come back in enqueue order, singles and batches alike; peek removes nothing")
  func fifo() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let queue = try open()
    let first = try await queue.enqueue(Event(name: "a"))
    let batch = try await queue.enqueue(contentsOf: Self.events("b", "c", "d"))
    try await queue.enqueue(Event(name: "e"))

    #expect(first.ids.count == 1 && batch.ids.count == 3 && batch.dropped == 0)
    #expect(first.ids[0] < batch.ids[0] && batch.ids == batch.ids.sorted())
    #expect(try await queue.peek(limit: 2).map(\.element.name) == ["a", "b"])
    let now = try #require(try queue.peekNow(limit: 2))
    #expect(now.map(\.id) == (try await queue.peek(limit: 2)).map(\.id), "read on the caller's thread, the same")
    let all = try await queue.peek(limit: 10)
    #expect(all.map(\.element.name) == ["a", "b", "c", "d", "e"])
    #expect(all.allSatisfy { $0.attempts == 0 && $0.notBefore == nil && $0.enqueuedAt == Self.start })
    #expect(try await queue.count() == 5)
    #expect(try await queue.enqueue(contentsOf: []).ids.isEmpty)
  }

  @Test("Acknowledge deletes; release records an attempt and a not-before time that peek honours, across reopening")
  func acknowledgeAndRelease() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let retryAt = Self.start.addingTimeInterval(60)
    do {
      // GIVEN three events, WHEN the first fails twice and the second is delivered
      let queue = try open()
      let ids = try await queue.enqueue(contentsOf: Self.events("a", "b", "c")).ids
      #expect(try await queue.release([ids[0]], retryAt: Self.start.addingTimeInterval(30)) == 1)
      #expect(try await queue.release([ids[0], 999], retryAt: retryAt) == 1)
      #expect(try await queue.acknowledge([ids[1]]) == 1)
      #expect(try await queue.acknowledge([ids[1]]) == 0, "a repeated acknowledgement is harmless")
    }
    // THEN, after a restart, the released event waits for its time and keeps its attempts
    let queue = try open()
    #expect(try await queue.count() == 2)
    #expect(try await queue.peek(limit: 10, now: Self.start).map(\.element.name) == ["c"])
    #expect(try await queue.peek(limit: 10, now: retryAt.addingTimeInterval(-1)).map(\.element.name) == ["c"])
    let due = try await queue.peek(limit: 10, now: retryAt)
    #expect(due.map(\.element.name) == ["a", "c"])
    #expect(due.map(\.attempts) == [2, 0])
    #expect(due[0].notBefore == retryAt && due[1].notBefore == nil)
    #expect(try await queue.nextNotBefore() == Date(timeIntervalSince1970: 0), "c is due now")
    try await queue.acknowledge([due[1].id])
    #expect(try await queue.nextNotBefore() == retryAt)
    try await queue.acknowledge([due[0].id])
    #expect(try await queue.nextNotBefore() == nil)
  }

  @Test("rejectNew refuses a whole enqueue that does not fit, writes none of it, and counts it across reopening")
  func rejectNew() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    do {
      let queue = try open(capacity: 3, overflow: .rejectNew)
      try await queue.enqueue(contentsOf: Self.events("a", "b"))
      let error = await #expect(throws: PersistenceError.self) {
        try await queue.enqueue(contentsOf: Self.events("c", "d"))
      }
      #expect(error?.kind == .capacityExceeded)
      #expect(error?.description.contains("rejectNew") == true)
      try await queue.enqueue(Event(name: "c"))
      await #expect(throws: PersistenceError.self) { try await queue.enqueue(Event(name: "d")) }
    }
    let queue = try open(capacity: 3, overflow: .rejectNew)
    #expect(try await queue.peek(limit: 10).map(\.element.name) == ["a", "b", "c"])
    let statistics = try await queue.statistics()
    #expect(statistics.rejected == 3 && statistics.dropped == 0 && statistics.pending == 3)
  }

  @Test("dropOldest makes room by deleting the oldest, reports and counts them across reopening")
  func dropOldest() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    do {
      let queue = try open(capacity: 3, overflow: .dropOldest)
      try await queue.enqueue(contentsOf: Self.events("1", "2", "3"))
      #expect(try await queue.enqueue(Event(name: "4")).dropped == 1)
      #expect(try await queue.peek(limit: 10).map(\.element.name) == ["2", "3", "4"])
      // A batch larger than the capacity keeps its newest elements: 2, 3, 4, 5 and 6 are dropped.
      let result = try await queue.enqueue(contentsOf: Self.events("5", "6", "7", "8", "9"))
      #expect(result.dropped == 5 && result.ids.count == 3)
    }
    let queue = try open(capacity: 3, overflow: .dropOldest)
    #expect(try await queue.peek(limit: 10).map(\.element.name) == ["7", "8", "9"])
    #expect(
      try await queue.statistics() == .init(pending: 3, deadLetters: 0, dropped: 6, rejected: 0, deadLettersDropped: 0))
  }

  @Test(
    "Dead letters leave delivery with their reason, persist, are capped, and can be removed; past the cap new ones are counted, the kept ones stay"
  )
  func deadLetters() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    do {
      let queue = try open(deadLetterCapacity: 2)
      let ids = try await queue.enqueue(contentsOf: Self.events("a", "b", "c", "d")).ids
      try await queue.release([ids[1], ids[2]], retryAt: Self.start)
      #expect(
        try await queue.deadLetter([ids[1]], reason: "HTTP 400: invalid event name") == .init(kept: 1, dropped: 0))
      #expect(try await queue.peek(limit: 10).map(\.element.name) == ["a", "c", "d"])
      #expect(try await queue.deadLetter([ids[2], ids[3]], reason: "HTTP 413") == .init(kept: 1, dropped: 1))
      #expect(try await queue.peek(limit: 10).map(\.element.name) == ["a"], "the one not kept left delivery too")
    }
    let queue = try open(deadLetterCapacity: 2)
    let letters = try await queue.deadLetters(limit: 10)
    #expect(letters.map(\.element?.name) == ["b", "c"], "the letters kept stay; the newest did not fit")
    #expect(letters.map(\.reason) == ["HTTP 400: invalid event name", "HTTP 413"])
    #expect(letters.map(\.attempts) == [1, 1] && letters[0].deadLetteredAt == Self.start)
    #expect(try await queue.deadLetterCount() == 2)
    #expect(
      try await queue.statistics() == .init(pending: 1, deadLetters: 2, dropped: 0, rejected: 0, deadLettersDropped: 1))
    #expect(try await queue.removeDeadLetters([letters[0].id]) == 1)
    #expect(try await queue.deadLetters(limit: 10).map(\.element?.name) == ["c"])
  }

  @Test("A payload that no longer decodes is dead-lettered with its bytes, and does not block the queue")
  func undecodablePayload() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    struct Loose: Codable, Sendable {
      var name: String?
      var value = 0.0
    }
    try await open(Loose.self).enqueue(contentsOf: [Loose(name: "a"), Loose(name: nil), Loose(name: "c")])

    let queue = try open(Event.self)
    #expect(try queue.peekNow(limit: 1)?.map(\.element.name) == ["a"])
    #expect(try queue.peekNow(limit: 10) == nil, "the read on the caller's thread leaves the setting aside to peek")
    let items = try await queue.peek(limit: 10)
    #expect(items.map(\.element.name) == ["a", "c"])
    #expect(try queue.peekNow(limit: 10)?.map(\.element.name) == ["a", "c"])
    let letters = try await queue.deadLetters(limit: 10)
    #expect(letters.count == 1 && letters.first?.element == nil)
    #expect(letters.first?.reason.contains("does not decode") == true)
    #expect(letters.first.map { String(decoding: $0.payload, as: UTF8.self) } == #"{"value":0}"#)
  }

  @Test("An element that fails to encode fails the whole batch with .encoding and writes nothing")
  func encodingFailure() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let queue = try open()
    let error = await #expect(throws: PersistenceError.self) {
      try await queue.enqueue(contentsOf: [Event(name: "fine"), Event(name: "nan", value: .nan)])
    }
    #expect(error?.kind == .encoding)
    #expect(try await queue.count() == 0)
    #expect(try await queue.peek(limit: 10).isEmpty)
  }

  @Test("A file that is not a database is a typed .corrupted error on open, never a crash")
  func garbageFile() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    var random = SystemRandomNumberGenerator()
    try Data((0..<16_384).map { _ in UInt8.random(in: 0...255, using: &random) }).write(to: url)
    let error = #expect(throws: PersistenceError.self) { _ = try open() }
    #expect(error?.kind == .corrupted)
    #expect(error?.description.contains(url.path) == true)
  }

  @Test("Damaged data pages in a real queue file fail the integrity check and reads with .corrupted, never a crash")
  func damagedPages() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    do {
      let queue = try open()
      let padding = String(repeating: "p", count: 500)
      try await queue.enqueue(contentsOf: (0..<200).map { Event(name: "\($0)\(padding)") })
    }
    // Closing the last connection checkpoints the WAL into the file and removes the WAL; the last one to go may go on
    // another thread (the one a write ran on), just after the queue. The schema sits in the first pages; the rows
    // fill the second half of the file: overwrite that.
    let log = url.path + "-wal"
    #expect(await poll(for: .seconds(10)) { !FileManager.default.fileExists(atPath: log) }, "the WAL was checkpointed")
    let size = try #require(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    let handle = try FileHandle(forWritingTo: url)
    try handle.seek(toOffset: UInt64(size / 2))
    try handle.write(contentsOf: Data(repeating: 0xA5, count: size - size / 2))
    try handle.close()

    let queue = try open()
    let check = await #expect(throws: PersistenceError.self) { try await queue.integrityCheck() }
    #expect(check?.kind == .corrupted)
    #expect(check?.description.contains("integrity check") == true)
    let read = await #expect(throws: PersistenceError.self) { _ = try await queue.peek(limit: 1_000) }
    #expect(read?.kind == .corrupted)
  }

  @Test("The database is in WAL mode; synchronous is FULL by default, NORMAL when surviving a crash is enough")
  func journalSettings() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let settings = try await open().journalSettings()
    #expect(settings.journalMode == "wal")
    #expect(settings.synchronous == 2, "FULL")
    let crashSafe = try await DurableQueue<Event>(
      url: directory.appendingPathComponent("crash-safe.sqlite"), capacity: 10, overflow: .rejectNew,
      durability: .survivesCrash
    ).journalSettings()
    #expect(crashSafe.journalMode == "wal")
    #expect(crashSafe.synchronous == 1, "NORMAL")
  }

  @Test("Concurrent enqueues from many tasks are all present exactly once")
  func concurrentEnqueues() async throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let queue = try open(capacity: 10_000)
    let ids = try await withThrowingTaskGroup(of: [Int64].self) { group in
      for task in 0..<8 {
        group.addTask {
          var ids: [Int64] = []
          for index in 0..<20 { ids += try await queue.enqueue(Event(name: "\(task)-\(index)")).ids }
          ids += try await queue.enqueue(contentsOf: (20..<30).map { Event(name: "\(task)-\($0)") }).ids
          return ids
        }
      }
      return try await group.reduce(into: []) { $0 += $1 }
    }
    let names = try await queue.peek(limit: 1_000).map(\.element.name)
    #expect(Set(ids).count == 240)
    #expect(names.count == 240 && Set(names).count == 240)
    for task in 0..<8 {
      let own = names.filter { $0.hasPrefix("\(task)-") }
      #expect(own == (0..<30).map { "\(task)-\($0)" }, "each task's elements stay in its order")
    }
  }

  @Test("Bad arguments are .invalidInput")
  func invalidInput() {
    let zero = #expect(throws: PersistenceError.self) { _ = try open(capacity: 0) }
    #expect(zero?.kind == .invalidInput)
    let remote = #expect(throws: PersistenceError.self) {
      _ = try DurableQueue<Event>(url: URL(string: "https://example.com/q")!, capacity: 1, overflow: .rejectNew)
    }
    #expect(remote?.kind == .invalidInput)
  }

  @Test(
    "SQLite result codes map to the kinds a caller can act on",
    arguments: [
      (13, .diskFull), (14, .permissionDenied), (3, .permissionDenied), (8, .permissionDenied),
      (11, .corrupted), (267, .corrupted), (26, .corrupted), (10, .io), (266, .io), (5, .io),
    ] as [(Int32, PersistenceError.Kind)])
  func resultCodes(code: Int32, kind: PersistenceError.Kind) {
    #expect(PersistenceError.kind(ofSQLiteResultCode: code) == kind)
  }

  @Test("A directory that cannot be created or written is .permissionDenied, for root too")
  func permissionDenied() throws {
    #if os(Linux)
      // Tests run as root in CI, where a chmod'ed directory denies nothing; /sys refuses even root: its directories
      // cannot be made (EPERM) and no file can be created in it (EACCES).
      let cannotCreate = #expect(throws: PersistenceError.self) {
        _ = try DurableQueue<Event>(
          url: URL(fileURLWithPath: "/sys/keel-queue-\(UUID())/events.sqlite"), capacity: 1, overflow: .rejectNew)
      }
      #expect(cannotCreate?.kind == .permissionDenied)
      let cannotWrite = #expect(throws: PersistenceError.self) {
        _ = try DurableQueue<Event>(url: URL(fileURLWithPath: "/sys/events.sqlite"), capacity: 1, overflow: .rejectNew)
      }
      #expect(cannotWrite?.kind == .permissionDenied)
    #endif
    if getuid() != 0 {
      defer {
        try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        try? FileManager.default.removeItem(at: directory)
      }
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: directory.path)
      let error = #expect(throws: PersistenceError.self) { _ = try open() }
      #expect(error?.kind == .permissionDenied)
    }
  }
}
