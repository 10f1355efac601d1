import Foundation
import Sandbox
import TestSupport
import Testing

/// What a newcomer runs into first: global options wherever they are put, and `events flush` and `status` that say
/// what happened in words and send when asked.
@Suite("The CLI as a newcomer uses it", .timeLimit(.minutes(2)))
struct NewcomerTests {
  @Test("Global options work before the subcommand as after it")
  func globalOptionsBeforeTheSubcommand() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let options = ["--base-url", sandbox.baseURL.absoluteString, "--data-dir=\(directory.path)", "--json"]

      let created = try await Keel.run(options + ["users", "create", "alice:Alice"])
      let before = try await Keel.run(options + ["users", "get", "alice"])
      let after = try await Keel.run(["users", "get", "alice"] + options)

      #expect(created.status == 0, "\(created.errors)")
      #expect(before.status == 0, "\(before.errors)")
      #expect(try Keel.json(before)["user_id"] as? String == "alice")
      #expect(before.lines == after.lines)
    }
  }

  @Test("A server that refuses an upload: flush exits 70 saying so, status shows it, the next flush sends at once")
  func refusedUpload() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let target = ["--base-url", sandbox.baseURL.absoluteString, "--data-dir", directory.path]
      _ = try await Keel.run(["events", "track", "signed_up"] + target)
      try await sandbox.control.addFault(SandboxFault(route: "/v1/events/batch", status: 503, count: 1))

      let refused = try await Keel.run(["events", "flush"] + target)
      let status = try await Keel.run(["events", "status"] + target)
      // The failed upload set a retry date at least half a second away: only an explicit flush goes before it.
      let again = try await Keel.run(["events", "flush"] + target)
      let cleared = try await Keel.run(["events", "status"] + target)

      #expect(refused.status == 70, "\(refused.errors)")
      #expect(refused.errors.contains("HTTP 503"), "\(refused.errors)")
      #expect(
        status.lines == ["1 pending; last failure: the server answered HTTP 503, code E503: Injected fault"],
        "\(status.lines)")
      #expect(again.status == 0, "\(again.errors)")
      #expect(again.lines == ["1 delivered, 0 pending"])
      #expect(cleared.lines == ["0 pending"])
      #expect(try await sandbox.control.statistics().counter("eventUniques") == 1)
    }
  }

  @Test("A connection dropped without an answer is the network's (exit 69), in words, not a URLError's name")
  func droppedConnection() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let target = ["--base-url", sandbox.baseURL.absoluteString, "--data-dir", directory.path]
      _ = try await Keel.run(["events", "track", "signed_up"] + target)
      try await sandbox.control.addFault(SandboxFault(route: "/v1/events/batch", dropConnectionRate: 1, count: 1))

      let dropped = try await Keel.run(["events", "flush"] + target)

      #expect(dropped.status == 69, "\(dropped.errors)")
      #expect(dropped.errors.contains("could not be reached"), "\(dropped.errors)")
      for name in ["badServerResponse", "networkConnectionLost", "timedOut", "NSURLErrorDomain"] {
        #expect(!dropped.errors.contains(name), "\(dropped.errors)")
      }
    }
  }
}
