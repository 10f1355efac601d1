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
    "Chat outbox across SIGKILL", .timeLimit(.minutes(10)),
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

    @Test(
      "An edit, a deletion and a reaction queued offline, killed; killed again with answers lost; each applied once")
    func killedChangesApplyOnce() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let directory = try chatDirectory("crash-changes")
      let ann = try await ChatUser.signUp(
        "ann", on: sandbox, transport: TransportKind.nio.transport, directory: directory)
      let workspace = try await ann.chat.createWorkspace(named: "Keel")
      let channel = try await ann.chat.createChannel(named: "general", in: workspace.id).id
      var ids: [String] = []
      for number in 0..<3 {
        let sent = await ann.chat.outcome(of: try await ann.chat.send(CrashFixtures.chatText(number), to: channel))
        ids.append(try #require(sent.id))
      }
      await ann.chat.shutDown()
      let paths =
        ids.prefix(2).map { "/v1/conversations/\(channel)/messages/\($0)" }
        + ["/v1/conversations/\(channel)/messages/\(ids[2])/reactions"]
      let executable = ChildProcess.builtExecutable("DomainCrashHelper")
      func child(queueing: Bool) -> [String] {
        ["changes", directory.path, sandbox.baseURL.absoluteString] + (queueing ? ids : ["", "", ""])
      }

      // Offline: killed once all three are queued.
      for path in paths { try await sandbox.control.addFault(SandboxFault(route: path, dropConnectionRate: 1)) }
      let offline = try await ChildProcess.run(
        executable, arguments: child(queueing: true), killAfter: .seconds(90), killWhenPrinting: "done\n")
      #expect(offline.killed, "\(offline.errors)")
      #expect(offline.lines.filter { $0.hasPrefix("queued ") }.count == 3)

      // Every answer lost after the server applied the change: the first goes again and again until killed.
      try await sandbox.control.removeFaults()
      for path in paths { try await sandbox.control.addFault(SandboxFault(route: path, dropResponseRate: 1)) }
      let interrupted = try await ChildProcess.run(
        executable, arguments: child(queueing: false), killAfter: .seconds(1), killWhenPrinting: "drained\n")
      #expect(interrupted.killed, "the answers were lost, so the outbox could not drain")

      // Healthy: a third run sends what is left.
      try await sandbox.control.removeFaults()
      let drained = try await ChildProcess.run(executable, arguments: child(queueing: false), killAfter: .seconds(90))
      #expect(!drained.killed && drained.status == 0, "\(drained.errors)")
      let page = try await ann.sessions.client.send(
        APIRequest<Data>.data(
          ChatRouter(
            .messages(conversationID: channel, after: nil, before: nil, limit: 100), baseURL: ann.chat.baseURL)))
      let messages = (try JSONSerialization.jsonObject(with: page) as? [String: Any])?["messages"] as? [[String: Any]]
      #expect(messages?.map { $0["text"] as? String } == [CrashFixtures.editedText, "", CrashFixtures.chatText(2)])
      #expect(messages?.map { $0["deleted"] as? Bool } == [false, true, false])
      let reactions = messages?.last?["reactions"] as? [[String: Any]]
      #expect(reactions?.map { $0["userIds"] as? [String] } == [[ann.id]])
      // Three sends, then one number for each change, in the order made: none applied twice.
      #expect(messages?.map { $0["version"] as? Int } == [4, 5, 6])
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
