import Foundation
import Sandbox
import TestSupport
import Testing

/// REQUIREMENTS E12 from the command line: a flush that sets events aside says so and does not exit 0; `status
/// --dead-letters` shows them with the server's reasons; `requeue` puts them back.
@Suite("keel events: dead letters", .timeLimit(.minutes(2)))
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
}
