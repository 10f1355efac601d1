import Foundation
import Sandbox
import TestSupport
import Testing

/// Whose chat a data directory shows: only the signed-in account's, whatever another account left there.
@Suite("keel chat: one account's chat is not the next's", .serialized, .timeLimit(.minutes(10)))
struct ChatAccountCommandTests {
  @Test("Ada reads her channels and signs out; demo signs in on the same directory and sees none of hers, offline too")
  func nextAccountSeesNothing() async throws {
    let sandbox = try await ChatCommandTests.servedSandbox()
    let directory = try Keel.dataDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let options = Keel.options(sandbox, directory)

    // Ada: a channel only she is in, a message in it, her channels and DMs read (and so stored here).
    let login = try await ChatCommandTests.call(
      sandbox, "POST", "/v1/auth/login", json: ["email": "ada@keel.dev", "password": "ada-password"])
    let token = try #require(login["accessToken"] as? String)
    let workspaces = try await ChatCommandTests.call(sandbox, "GET", "/v1/workspaces", token: token)
    let keel = try #require((workspaces["workspaces"] as? [[String: Any]])?.first?["id"] as? String)
    _ = try await ChatCommandTests.call(
      sandbox, "POST", "/v1/workspaces/\(keel)/channels", token: token, json: ["name": "ada-only"])
    try await ChatCommandTests.login("ada@keel.dev", options)
    let sent = try await Keel.run(["chat", "send", "#ada-only", "Ada's secret plan"] + options)
    #expect(sent.status == 0, "\(sent.errors)")
    let hers = try await Keel.run(["chat", "channels"] + options)
    #expect(hers.lines.contains { $0.hasPrefix("#ada-only") }, "\(hers.lines)")
    let history = try await Keel.run(["chat", "history", "ada-only"] + options)
    #expect(history.lines.contains { $0.hasSuffix("Ada's secret plan") }, "\(history.lines)")
    let dms = try await Keel.run(["chat", "dms"] + options)
    #expect(dms.lines.contains { $0.hasPrefix("@demo") }, "her DM with demo: \(dms.lines)")

    // She signs out: nothing the server gave her is left in the directory's files.
    let logout = try await Keel.run(["auth", "logout"] + options)
    #expect(logout.status == 0, "\(logout.errors)")
    #expect(try filesContaining("Ada's secret plan", in: directory).isEmpty)
    #expect(try filesContaining("ada-only", in: directory).isEmpty)

    // Demo signs in on the same directory, then the server goes away: no command shows anything of Ada's.
    try await ChatCommandTests.login("demo@keel.dev", options)
    await sandbox.stop()
    var shown = ""
    for command in [["workspaces"], ["channels", "--workspace", "Keel"], ["dms", "--workspace", "Keel"]]
      + [["history", "ada-only", "--workspace", "Keel"], ["history", "@demo", "--workspace", "Keel"]]
    {
      let run = try await Keel.run(["chat"] + command + options)
      #expect(run.status != 0, "the server is gone, so nothing was confirmed: \(command)")
      shown += run.lines.joined(separator: "\n") + run.errors
    }
    for hers in ["ada-only", "Ada's secret plan", "@demo", "#general"] {
      #expect(!shown.contains(hers), "\(hers) was shown to demo: \(shown)")
    }
  }

  /// The files below `directory` whose bytes contain `text`.
  private func filesContaining(_ text: String, in directory: URL) throws -> [String] {
    let needle = Data(text.utf8)
    let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?.allObjects ?? []
    return files.compactMap { $0 as? URL }.filter { url in
      (try? Data(contentsOf: url))?.range(of: needle) != nil
    }.map(\.path)
  }
}
