import Chat
import Domain
import Foundation
import Logging
import Networking
import Persistence
import Sandbox
import Testing

extension ChatAgainstSandbox {
  /// One account's chat is never another's: the chat's store and outbox belong to the signed-in account, a sign-out
  /// forgets what the server gave and keeps what its user has not sent for them alone.
  @Suite("Chat: whose chat it is", .timeLimit(.minutes(3)))
  struct ChatAccountIntegrationTests {
    @Test("Ann signs out and Bob signs in on her device: he sees none of her chat; her unsent message waits for her")
    func accountSwitch() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let bob = try await ChatUser.signUp("bob", on: sandbox, transport: TransportKind.nio.transport)
      let ann = try await ChatUser.signUp("ann", on: sandbox, transport: TransportKind.nio.transport)
      let accounts = ann.directory.appendingPathComponent("chat/accounts")

      // Ann's chat: her workspace, a channel only she is in, a message sent, and one the server cannot take now.
      let workspace = try await ann.chat.createWorkspace(named: "Ann's")
      let secret = try await ann.chat.createChannel(named: "secret", in: workspace.id)
      #expect(try await ann.chat.refreshChannels(in: workspace.id).map(\.name) == ["secret"])
      let sent = await ann.chat.outcome(of: try await ann.chat.send("sent before", to: secret.id))
      #expect(sent.state == .sent)
      try ann.chat.setLastWorkspaceID(workspace.id)
      let route = "/v1/conversations/\(secret.id)/messages"
      try await sandbox.control.addFault(SandboxFault(route: route, method: "POST", dropConnectionRate: 1))
      _ = try await ann.chat.send("written offline", to: secret.id)
      #expect(await chatPoll { ann.chat.outboxProblem != nil }, "the send was tried and failed")

      // She signs out: her chat is closed to everyone, her unsent message kept in her own directory.
      try await ann.sessions.logout()
      await ann.chat.forgetSignedOutAccounts()
      #expect(try FileManager.default.contentsOfDirectory(atPath: accounts.path).count == 1, "hers, with the unsent")
      #expect(throws: ChatError.self) { try ann.chat.store }
      #expect(ann.chat.lastWorkspaceID == nil)
      try await sandbox.control.removeFaults()

      // Bob signs in on the same device: nothing of Ann's, even before the server answers; nothing sent as him.
      _ = try await ann.sessions.login(email: "bob@example.com", password: "password-bob")
      #expect(try await ann.chat.store.workspaces().isEmpty)
      #expect(try await ann.chat.store.conversation(secret.id) == nil)
      #expect(try await ann.chat.store.messageCount(in: secret.id) == 0)
      #expect(try await ann.chat.outboxCount() == 0)
      #expect(ann.chat.lastWorkspaceID == nil)
      var lists: [[Workspace]] = []
      for try await list in ann.chat.workspaces().prefix(2) { lists.append(list) }
      #expect(lists == [[], []], "Bob is in no workspace, stored or on the server")
      let bobsWorkspace = try await ann.chat.createWorkspace(named: "Bob's")
      let bobsChannel = try await ann.chat.createChannel(named: "bob", in: bobsWorkspace.id)
      let bobs = await ann.chat.outcome(of: try await ann.chat.send("from bob", to: bobsChannel.id))
      #expect(bobs.state == .sent && bobs.senderID == bob.id, "his outbox sent his message; Ann's was not in it")

      // Ann again: her unsent message goes out as hers; what the server gave comes back from the server.
      try await ann.sessions.logout()
      _ = try await ann.sessions.login(email: "ann@example.com", password: "password-ann")
      #expect(try await ann.chat.store.workspaces().isEmpty, "forgotten at her sign-out")
      let waiting = try await ann.chat.store.messages(in: secret.id, limit: 10)
      #expect(waiting.map(\.text) == ["written offline"] && waiting.first?.state != .sent)
      #expect(await chatPoll { try await ann.chat.outboxCount() == 0 })
      #expect(
        try await serverTexts(secret.id, as: ann.sessions, on: sandbox) == ["sent before", "written offline"],
        "sent once, as Ann, in her channel")

      // Nothing unsent is left of Bob's: his directory is gone once Ann is back.
      let left = try FileManager.default.contentsOfDirectory(atPath: accounts.path)
      #expect(left.count == 1, "\(left)")
      await bob.chat.shutDown()
      await ann.chat.shutDown()
      await sandbox.stop()
    }

    /// The texts of `conversationID`'s messages on the server, oldest first, read as `sessions`' user.
    private func serverTexts(
      _ conversationID: String, as sessions: SessionManager, on sandbox: RunningSandbox
    ) async throws -> [String] {
      let page = try await sessions.client.send(
        APIRequest<Data>.data(
          ChatRouter(
            .messages(conversationID: conversationID, after: nil, before: nil, limit: 100), baseURL: sandbox.baseURL)))
      let object = try JSONSerialization.jsonObject(with: page) as? [String: Any]
      let messages = object?["messages"] as? [[String: Any]] ?? []
      return messages.compactMap { $0["text"] as? String }
    }
  }
}
