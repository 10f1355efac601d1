import Chat
import CrashFixtures
import Domain
import Foundation
import Logging
import Networking
import Persistence
import Sandbox
import TestSupport
import Testing

extension ChatAgainstSandbox {
  /// The chat outbox across SIGKILL (REQUIREMENTS C5): messages written offline by a process that is killed go out
  /// from the next process, each exactly once, in order, even when that one is killed mid-send and answers are lost
  /// after the server stored the message.
  @Suite(
    "Chat outbox across SIGKILL", .timeLimit(.minutes(3)),
    // What it checks crosses processes, where ThreadSanitizer does not look; three instrumented children cost a minute.
    .disabled(if: underThreadSanitizer, "the normal test run covers it"))
  struct ChatOutboxCrashTests {
    @Test(
      "50 messages sent offline, killed; killed again mid-send with answers lost; the third run sends the rest once")
    func killedOutboxSendsOnce() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let directory = try chatDirectory("crash")
      let ann = try await ChatUser.signUp(
        "ann", on: sandbox, transport: TransportKind.nio.transport, directory: directory)
      let workspace = try await ann.chat.createWorkspace(named: "Keel")
      let channel = try await ann.chat.createChannel(named: "general", in: workspace.id).id
      await ann.chat.shutDown()
      let route = "/v1/conversations/\(channel)/messages"
      let executable = ChildProcess.builtExecutable("DomainCrashHelper")
      func child(_ range: Range<Int>) -> [String] {
        [
          "chat", directory.path, sandbox.baseURL.absoluteString, channel, String(range.lowerBound),
          String(range.upperBound),
        ]
      }

      // Offline: every send's connection is cut before the server reads it. Killed once all 50 are queued.
      try await sandbox.control.addFault(SandboxFault(route: route, method: "POST", dropConnectionRate: 1))
      let offline = try await ChildProcess.run(
        executable, arguments: child(0..<50), killAfter: .seconds(90), killWhenPrinting: "done\n")
      #expect(offline.killed, "\(offline.errors)")
      #expect(offline.lines.filter { $0.hasPrefix("queued ") }.count == 50)
      #expect(try await storedTexts(ann, channel).isEmpty)

      // Online, slow, and half the answers lost after the message was stored: killed while sending.
      try await sandbox.control.removeFaults()
      try await sandbox.control.addFault(
        SandboxFault(route: route, method: "POST", latency: .milliseconds(20), dropResponseRate: 0.5, seed: 11))
      let interrupted = try await ChildProcess.run(
        executable, arguments: child(0..<0), killAfter: .milliseconds(800), killWhenPrinting: "drained\n")
      #expect(interrupted.killed)
      let partial = try await storedTexts(ann, channel)
      #expect(partial.count < 50, "the second run was killed before it sent everything (\(partial.count) sent)")

      // A third run, the network healthy, sends what is left.
      try await sandbox.control.removeFaults()
      let drained = try await ChildProcess.run(executable, arguments: child(0..<0), killAfter: .seconds(90))
      #expect(!drained.killed && drained.status == 0, "\(drained.errors)")
      #expect(drained.lines.last == "drained")
      #expect(try await storedTexts(ann, channel) == (0..<50).map(CrashFixtures.chatText), "each once, in order")
      await sandbox.stop()
    }

    /// The texts the server holds for `channel`, oldest first.
    private func storedTexts(_ user: ChatUser, _ channel: String) async throws -> [String] {
      let page = try await user.sessions.client.send(
        APIRequest<Data>.data(
          ChatRouter(
            .messages(conversationID: channel, after: nil, before: nil, limit: 100), baseURL: user.chat.baseURL))
      )
      let object = try JSONSerialization.jsonObject(with: page) as? [String: Any]
      let messages = object?["messages"] as? [[String: Any]] ?? []
      return messages.compactMap { $0["text"] as? String }
    }
  }
}
