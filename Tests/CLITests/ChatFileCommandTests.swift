import Foundation
import Sandbox
import TestSupport
import Testing

/// `keel chat send --file` and `keel chat download`: exit codes as documented, the `files` key of `--json`, no
/// progress bar when standard error is not a terminal, a download written byte-exact, a non-member refused.
@Suite("keel chat files", .serialized, .timeLimit(.minutes(10)))
struct ChatFileCommandTests {
  @Test("send --file and download: 0 byte-exact; 65 past the limits, 66 missing, before sending; 67 a non-member")
  func files() async throws {
    let sandbox = try await ChatCommandTests.servedSandbox()
    let ada = try Keel.dataDirectory("ada")
    let demo = try Keel.dataDirectory("demo")
    defer {
      try? FileManager.default.removeItem(at: ada)
      try? FileManager.default.removeItem(at: demo)
    }
    let adaOptions = Keel.options(sandbox, ada)
    let demoOptions = Keel.options(sandbox, demo)
    try await ChatCommandTests.login("ada@keel.dev", adaOptions)
    try await ChatCommandTests.login("demo@keel.dev", demoOptions)

    // Refused before anything is sent: a missing file (66), six files, one over 25 MiB (65).
    let notes = demo.appendingPathComponent("notes.txt")
    let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    try bytes.write(to: notes)
    let missing = try await Keel.run(["chat", "send", "general", "x", "--file", "/nonexistent/a.pdf"] + demoOptions)
    #expect(missing.status == 66)
    #expect(missing.errors == "keel: No file at /nonexistent/a.pdf; nothing was sent.\n")
    let six = Array(repeating: ["--file", notes.path], count: 6).flatMap { $0 }
    #expect(try await Keel.run(["chat", "send", "general", "six"] + six + demoOptions).status == 65)
    let huge = demo.appendingPathComponent("huge.bin")
    _ = FileManager.default.createFile(atPath: huge.path, contents: nil)
    let handle = try FileHandle(forWritingTo: huge)
    try handle.truncate(atOffset: UInt64(25 << 20) + 1)
    try handle.close()
    let tooLarge = try await Keel.run(["chat", "send", "general", "huge", "--file", huge.path] + demoOptions)
    #expect(tooLarge.status == 65, "\(tooLarge.errors)")
    #expect(tooLarge.errors.contains("Cannot send these files"), "\(tooLarge.errors)")
    let stats = try await sandbox.control.statistics()
    #expect(stats.requests("POST /v1/conversations/:conversation/messages") == 0)

    // Sent: "files" in --json, and no progress bar on a standard error that is not a terminal.
    let sent = try await Keel.run(
      ["chat", "send", "general", "The notes", "--file", notes.path, "--json"] + demoOptions)
    #expect(sent.status == 0, "\(sent.errors)")
    #expect(!sent.errors.contains("Uploading"), "\(sent.errors)")
    let files = try #require(try Keel.json(sent)["files"] as? [[String: Any]])
    #expect(files.count == 1)
    #expect(files.first?["name"] as? String == "notes.txt")
    #expect(files.first?["size"] as? Int == bytes.count)
    #expect(files.first?["content_type"] as? String == "text/plain")
    let url = try #require(files.first?["url"] as? String)
    #expect(url.hasPrefix(sandbox.baseURL.absoluteString) && url.contains("/v1/chat-files/"), "\(url)")
    let human = try await Keel.run(["chat", "send", "general", "Again", "--file", notes.path] + demoOptions)
    #expect(human.lines.first?.hasSuffix("with 1 file.") == true, "\(human.lines)")

    // Ada downloads it, byte-exact; --json says what was written.
    let copy = ada.appendingPathComponent("copy.txt")
    let downloaded = try await Keel.run(["chat", "download", url, "--output", copy.path, "--json"] + adaOptions)
    #expect(downloaded.status == 0, "\(downloaded.errors)")
    #expect(try Data(contentsOf: copy) == bytes)
    #expect(try Keel.json(downloaded)["bytes"] as? Int == bytes.count)

    // A file of #random, which only Ada is in: Demo is refused (67); a URL elsewhere is not the chat's (65).
    let secret = try await Keel.run(["chat", "send", "random", "Mine", "--file", notes.path, "--json"] + adaOptions)
    #expect(secret.status == 0, "\(secret.errors)")
    let secretURL = try #require((try Keel.json(secret)["files"] as? [[String: Any]])?.first?["url"] as? String)
    let refused = try await Keel.run(
      ["chat", "download", secretURL, "--output", demo.appendingPathComponent("x").path] + demoOptions)
    #expect(refused.status == 67, "\(refused.errors)")
    #expect(!FileManager.default.fileExists(atPath: demo.appendingPathComponent("x").path))
    let elsewhere = try await Keel.run(
      ["chat", "download", "https://elsewhere.example/f1", "--output", copy.path] + adaOptions)
    #expect(elsewhere.status == 65, "\(elsewhere.errors)")
    await sandbox.stop()
  }
}
