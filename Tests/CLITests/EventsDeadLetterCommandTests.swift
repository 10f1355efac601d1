import Domain
import Foundation
import Persistence
import Sandbox
import TestSupport
import Testing

/// REQUIREMENTS E12 from the command line: a flush that sets events aside says so and does not exit 0; `status
/// --dead-letters` shows them with the server's reasons; `requeue` puts them back.
@Suite("keel events: dead letters", .timeLimit(.minutes(10)))
struct EventsDeadLetterCommandTests {
  @Test("A refused event is set aside: flush exits 70 saying why, status lists it, requeue and flush deliver it")
  func setAsideAndRequeued() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let target = Keel.options(sandbox, directory)
      _ = try await Keel.run(["events", "track", "signed_up"] + target)
      try await sandbox.control.addFault(SandboxFault(route: "/v1/events/batch", status: 400, count: 1))

      let flushed = try await Keel.run(["events", "flush"] + target)
      #expect(flushed.status == 70, "\(flushed.errors)")
      #expect(
        flushed.lines == ["0 delivered, 0 pending, 1 refused by the server and set aside now; 1 set aside in all"])
      #expect(
        flushed.errors.contains("1 event was refused by the server and set aside (1 × HTTP 400: Injected fault)"),
        "\(flushed.errors)")

      let listed = try await Keel.run(["events", "status", "--dead-letters"] + target)
      #expect(listed.status == 0, "\(listed.errors)")
      #expect(listed.lines.first == "0 pending, 1 refused by the server (set aside)", "\(listed.lines)")
      #expect(listed.lines.count == 2 && listed.lines[1].hasPrefix("#1 signed_up ("), "\(listed.lines)")
      #expect(listed.lines.last?.hasSuffix(": HTTP 400: Injected fault.") == true, "\(listed.lines)")
      let json = try Keel.json(try await Keel.run(["events", "status", "--dead-letters", "--json"] + target))
      let letters = try #require(json["dead_letters"] as? [[String: Any]], "\(json)")
      #expect(letters.first?["name"] as? String == "signed_up")

      let requeued = try await Keel.run(["events", "requeue"] + target)
      #expect(requeued.status == 0, "\(requeued.errors)")
      #expect(requeued.lines == ["1 event back in the queue; 1 pending. `keel events flush` delivers them."])
      let delivered = try await Keel.run(["events", "flush"] + target)
      #expect(delivered.status == 0, "\(delivered.errors)")
      #expect(delivered.lines == ["1 delivered, 0 pending"])
      #expect(try await sandbox.control.statistics().counter("eventUniques") == 1)
    }
  }

  @Test("requeue --id takes only the ids given; an id that is not one is a usage error")
  func requeueById() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let target = Keel.options(sandbox, directory)
      let bad = try await Keel.run(["events", "requeue", "--id", "0"] + target)
      #expect(bad.status == 64, "\(bad.errors)")
      let none = try await Keel.run(["events", "requeue", "--id", "42"] + target)
      #expect(none.status == 0, "\(none.errors)")
      #expect(none.lines.first?.hasPrefix("0 events back in the queue") == true, "\(none.lines)")
    }
  }

  @Test("Past 1,000 set-aside events, none is lost: the oldest stay, and status lists every one")
  func manyRefused() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let target = Keel.options(sandbox, directory)
      // 1,000 set aside by earlier flushes, then 100 more refused now.
      try await Self.queue(in: directory) { queue in
        let ids = try await queue.enqueue(contentsOf: (0..<1_000).map { AnalyticsEvent(name: "old_\($0)") }).ids
        _ = try await queue.deadLetter(ids, reason: "HTTP 400: refused earlier")
        _ = try await queue.enqueue(contentsOf: (0..<100).map { AnalyticsEvent(name: "new_\($0)") })
      }
      try await sandbox.control.addFault(SandboxFault(route: "/v1/events/batch", status: 400, count: 1_000))
      let flushed = try await Keel.run(["events", "flush"] + target)
      #expect(flushed.status == 70, "\(flushed.errors)")
      #expect(
        flushed.lines == ["0 delivered, 0 pending, 100 refused by the server and set aside now; 1100 set aside in all"])

      let listed = try await Keel.run(["events", "status", "--dead-letters"] + target)
      #expect(listed.status == 0, "\(listed.errors)")
      let names = Set(
        listed.lines.dropFirst().compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) })
      let expected = Set((0..<1_000).map { "old_\($0)" } + (0..<100).map { "new_\($0)" })
      #expect(listed.lines.count == 1 + 1_100 && names == expected, "the oldest stay: \(listed.lines.count) lines")
    }
  }

  @Test("A refused event that finds the set-aside store full is reported lost: flush and status exit 74")
  func setAsideStoreFull() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let target = Keel.options(sandbox, directory)
      let capacity = EventTrackerConfiguration().deadLetterCapacity
      try await Self.queue(in: directory) { queue in
        let ids = try await queue.enqueue(contentsOf: (0..<capacity).map { AnalyticsEvent(name: "old_\($0)") }).ids
        #expect(
          try await queue.deadLetter(ids, reason: "HTTP 400: refused earlier") == .init(kept: capacity, dropped: 0))
      }
      let full = try await Keel.run(["events", "status"] + target)
      #expect(full.status == 74, "a full store loses the next refused event: \(full.errors)")
      #expect(full.errors.contains("The next event the server refuses will be lost"), "\(full.errors)")

      _ = try await Keel.run(["events", "track", "late"] + target)
      try await sandbox.control.addFault(SandboxFault(route: "/v1/events/batch", status: 400, count: 10))
      let flushed = try await Keel.run(["events", "flush"] + target)
      #expect(flushed.status == 74, "\(flushed.errors)")
      #expect(
        flushed.lines == [
          "0 delivered, 0 pending, 1 refused by the server and set aside now (1 of them lost: the set-aside store is "
            + "full); \(capacity) set aside in all"
        ])
      #expect(
        flushed.errors.contains("1 event the server refused could not be set aside and is lost"), "\(flushed.errors)")

      let status = try await Keel.run(["events", "status", "--json"] + target)
      #expect(status.status == 74, "\(status.errors)")
      let json = try Keel.json(status)
      #expect(json["dead_letters_dropped"] as? Int == 1, "\(json)")
      #expect(json["dead_lettered"] as? Int == capacity, "the letters kept stay: \(json)")
    }
  }

  /// The data directory's event queue, opened as the CLI opens it, for `body`, and closed after.
  private static func queue(
    in directory: URL, _ body: (DurableQueue<AnalyticsEvent>) async throws -> Void
  ) async throws {
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let queue = try DurableQueue<AnalyticsEvent>(
      url: directory.appendingPathComponent("events.sqlite"), capacity: 100_000, overflow: .dropOldest)
    try await body(queue)
  }
}
