import Chat
import Domain
import Foundation
import KeelConcurrency
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

      // Ann signs in on Bob's device, her list started at once, as the session changes hands: it has a socket.
      _ = try await bob.sessions.login(email: "ann@example.com", password: "password-ann")
      let annsWorkspaces = Following(bob.chat.workspaces())
      #expect(await annsWorkspaces.received(2))
      let later = try await ann.chat.createWorkspace(named: "Later")
      #expect(await annsWorkspaces.until { $0.map(\.id) == [later.id] } != nil, "pushed to her on Bob's device")
      #expect(annsWorkspaces.ending.withLock { $0 } == nil, "her list goes on")
      await bob.chat.shutDown()
    }

    @Test("A message pushed twice, into an open conversation or not, counts once; the user's own counts none")
    func duplicatesCountOnce() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let transport = TransportKind.nio.transport
      let ann = try await ChatUser.signUp("ann", on: sandbox, transport: transport)
      let bob = try await ChatUser.signUp("bob", on: sandbox, transport: transport)
      let workspace = try await ann.chat.createWorkspace(named: "Keel")
      try await ann.chat.invite(email: "bob@example.com", to: workspace.id)
      let open = try await ann.chat.createChannel(named: "open", in: workspace.id)
      let closed = try await ann.chat.createChannel(named: "closed", in: workspace.id)
      _ = try await bob.chat.join(open.id)
      _ = try await bob.chat.join(closed.id)
      let lists = Following(bob.chat.channels(in: workspace.id))
      let conversation = try await bob.chat.open(open.id)
      #expect(await conversation.caughtUp() == .live)
      #expect(await lists.received(2))
      #expect(await chatPoll { bob.chat.connectionState.isConnected })

      try await sandbox.control.socketIOFault(duplicate: true)
      for text in ["one", "two", "three"] {
        _ = await ann.chat.outcome(of: try await ann.chat.send(text, to: open.id))
        _ = await ann.chat.outcome(of: try await ann.chat.send(text, to: closed.id))
      }
      let counted = await lists.until { list in list.allSatisfy { $0.unreadCount >= 3 } }
      #expect(counted?.map(\.unreadCount) == [3, 3], "\(String(describing: counted))")
      // Bob's own message, from his phone: nothing left unread there.
      let phone = try await ChatUser.signIn("bob", on: sandbox, transport: transport)
      _ = await phone.chat.outcome(of: try await phone.chat.send("read them all", to: closed.id))
      #expect(await lists.until { $0.first { $0.id == closed.id }?.unreadCount == 0 } != nil)
      // Pushes that came twice counted once: the server agrees.
      try await sandbox.control.removeSocketIOFaults()
      let server = try await bob.chat.refreshChannels(in: workspace.id)
      #expect(server.first { $0.id == open.id }?.unreadCount == 3)
      await conversation.close()
      await phone.chat.shutDown()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
    }
  }
}
