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
      #expect(dropped.errors.contains("1 event could not be delivered"), "\(dropped.errors)")
      #expect(dropped.errors.contains("could not be reached"), "\(dropped.errors)")
      for name in ["badServerResponse", "networkConnectionLost", "timedOut", "NSURLErrorDomain"] {
        #expect(!dropped.errors.contains(name), "\(dropped.errors)")
      }
    }
  }

  @Test("keel --version prints the version and exits 0")
  func version() async throws {
    let run = try await Keel.run(["--version"])
    #expect(run.status == 0)
    #expect(run.lines.count == 1 && run.lines.first?.isEmpty == false, "\(run.lines)")
  }

  @Test("With --json, a usage error is a JSON error document too, in snake_case like every --json output")
  func jsonUsageError() async throws {
    let run = try await Keel.run(["users", "get", "--json"])
    #expect(run.status == 64)
    let error = try #require(try Keel.json(run)["error"] as? [String: Any], "\(run.lines)")
    #expect(error["kind"] as? String == "usage")
    #expect(error["exit_code"] as? Int == 64)
  }

  @Test("A user the server does not have is exit 67 (not found), not a server error")
  func userNotFound() async throws {
    try await Keel.withSandbox { sandbox, directory in
      let run = try await Keel.run(
        ["users", "get", "nobody", "--base-url", sandbox.baseURL.absoluteString, "--data-dir", directory.path])
      #expect(run.status == 67, "\(run.errors)")
      #expect(run.errors.contains("no such user"), "\(run.errors)")
    }
  }

  @Test("Commands that send nothing start and announce no Sandbox; their JSON keys are snake_case")
  func localCommandsStayLocal() async throws {
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let local = ["--data-dir", directory.path]

    let tracked = try await Keel.run(["events", "track", "opened"] + local)
    let status = try await Keel.run(["events", "status", "--json"] + local)
    let images = try await Keel.run(["images", "stats"] + local)

    for run in [tracked, status, images] {
      #expect(run.status == 0, "\(run.errors)")
      #expect(!run.errors.contains("Sandbox"), "\(run.errors)")
    }
    #expect(tracked.lines.first?.hasSuffix("1 pending. `keel events flush` delivers it.") == true, "\(tracked.lines)")
    let document = try Keel.json(status)
    #expect(document["pending"] as? Int == 1)
    #expect(document["dead_lettered"] as? Int == 0 && document["is_online"] as? Bool == true, "\(document)")
    #expect(images.lines == ["0 images, 0 bytes on disk."])
  }
}
