import Chat
import Domain
import Foundation
import Logging
import Persistence
import Realtime
import Sandbox
import Testing

extension ChatAgainstSandbox {
  @Suite("Live lists")
  struct LiveLists {
    @Test("Two users: each one's lists follow what the other does, pushed; a reconnection catches the lists up")
    func twoUsers() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let transport = TransportKind.nio.transport
      let ann = try await ChatUser.signUp("ann", on: sandbox, transport: transport)
      let bob = try await ChatUser.signUp("bob", on: sandbox, transport: transport)
      defer { Task { await ann.chat.shutDown() } }

      // Bob's workspaces, followed before he is in any: stored, the server's, then the invitation and a rename.
      let bobsWorkspaces = Following(bob.chat.workspaces())
      #expect(await bobsWorkspaces.received(2))
      #expect(await chatPoll { bob.chat.connectionState.isConnected }, "a live list connects the socket")
      let workspace = try await ann.chat.createWorkspace(named: "Keel")
      try await ann.chat.invite(email: "bob@example.com", to: workspace.id)
      #expect(await bobsWorkspaces.until { $0.map(\.id) == [workspace.id] } != nil, "invited")
      _ = try await ann.chat.renameWorkspace(workspace.id, to: "Ours")
      #expect(await bobsWorkspaces.until { $0.map(\.name) == ["Ours"] } != nil, "renamed")

      // Channels: created, renamed, joined (the count in the owner's list too), a message unread, read elsewhere.
      let bobsChannels = Following(bob.chat.channels(in: workspace.id))
      let annsChannels = Following(ann.chat.channels(in: workspace.id))
      let bobsRooms = Following(bob.chat.directMessages(in: workspace.id))
      #expect(await bobsChannels.received(2))
      #expect(await annsChannels.received(2))
      #expect(await bobsRooms.received(2))
      let general = try await ann.chat.createChannel(named: "general", in: workspace.id)
      let shown = await bobsChannels.until { $0.map(\.id) == [general.id] }
      #expect(shown?.first?.joined == false && shown?.first?.memberCount == 1, "created: \(String(describing: shown))")
      _ = try await ann.chat.renameChannel(general.id, to: "lobby")
      #expect(await bobsChannels.until { $0.first?.name == "lobby" } != nil, "renamed")
      #expect(try await bob.chat.join(general.id).joined)
      #expect(await annsChannels.until { $0.first?.memberCount == 2 } != nil, "Bob joined, pushed to Ann")
      let hello = await ann.chat.outcome(of: try await ann.chat.send("hello", to: general.id))
      #expect(await bobsChannels.until { $0.first?.unreadCount == 1 } != nil, "Ann's message counts for Bob")
      #expect(annsChannels.values.withLock { $0.last?.first?.unreadCount } == 0, "but not for Ann")
      let bobsPhone = try await ChatUser.signIn("bob", on: sandbox, transport: transport)
      defer { Task { await bobsPhone.chat.shutDown() } }
      #expect(try await bobsPhone.chat.markRead(general.id, upTo: try #require(hello.id)) == 0)
      #expect(await bobsChannels.until { $0.first?.unreadCount == 0 } != nil, "read on his phone")

      // A DM room Ann opens shows in Bob's list, and her message is its newest and unread.
      let room = try await ann.chat.openDirectMessage(with: bob.id, in: workspace.id)
      #expect(await bobsRooms.until { $0.map(\.conversation.id) == [room.conversation.id] } != nil, "opened")
      _ = await ann.chat.outcome(of: try await ann.chat.send("psst", to: room.conversation.id))
      let dm = await bobsRooms.until { $0.first?.lastMessage?.text == "psst" }
      #expect(dm?.first?.conversation.unreadCount == 1 && dm?.first?.conversation.name == "ann")

      // Pushes lost, then the socket cut: the reconnection fetches the lists again.
      try await sandbox.control.socketIOFault(loseNext: 2)
      let quiet = try await ann.chat.createChannel(named: "quiet", in: workspace.id)
      try await sandbox.control.socketIOFault(drop: true)
      try await sandbox.control.removeSocketIOFaults()
      #expect(
        await bobsChannels.until { Set($0.map(\.id)) == [general.id, quiet.id] } != nil, "caught up on reconnecting")

      // Deleted: the channel, then the workspace.
      try await ann.chat.deleteChannel(quiet.id)
      #expect(await bobsChannels.until { $0.map(\.id) == [general.id] } != nil, "channel deleted")
      try await ann.chat.deleteWorkspace(workspace.id)
      #expect(await bobsWorkspaces.until { $0.isEmpty } != nil, "workspace deleted")
      #expect(await bobsChannels.until { $0.isEmpty } != nil, "its channels with it")
      #expect(try await bob.chat.store.conversations(in: workspace.id).isEmpty)

      // The account ends: so do its lists.
      try await bob.sessions.logout()
      #expect(await chatPoll { bobsWorkspaces.ending.withLock { $0 != nil } })
      let ending = bobsWorkspaces.ending.withLock { $0 } ?? nil
      #expect((ending as? ChatError)?.kind == .notSignedIn, "\(String(describing: ending))")
      await bob.chat.shutDown()
    }
  }
}
