import Chat
import Domain
import Foundation
import Logging
import Networking
import Persistence
import Realtime
import Sandbox
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension ChatAgainstSandbox {
  /// The chat service against the Sandbox's chat backend (SandboxAPI §7), two users signed in, REST on each transport
  /// and the socket on NIO: lists, messages both ways with images, unread counts, membership and ownership.
  @Suite("Chat between two users against the Sandbox", .timeLimit(.minutes(3)))
  struct ChatServiceIntegrationTests {
    @Test(
      "A channel and a DM: messages both ways with images, unread counts, joining, leaving, ownership",
      // Under ThreadSanitizer on NIO only: the transports' own races are the transport suites' to find.
      arguments: underThreadSanitizer ? [TransportKind.nio] : TransportKind.allCases)
    func twoUsers(_ kind: TransportKind) async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let ann = try await ChatUser.signUp("ann", on: sandbox, transport: kind.transport)
      let bob = try await ChatUser.signUp("bob", on: sandbox, transport: kind.transport)

      let workspace = try await ann.chat.createWorkspace(named: "  Keel  ")
      #expect(workspace.name == "Keel" && workspace.ownerID == ann.id)
      try await ann.chat.invite(email: "bob@example.com", to: workspace.id)
      var bobsLists: [[Workspace]] = []
      for try await list in bob.chat.workspaces().prefix(2) { bobsLists.append(list) }
      #expect(bobsLists == [[], [workspace]], "the stored list (empty), then the server's")
      try bob.chat.setLastWorkspaceID(workspace.id)
      #expect(bob.chat.lastWorkspaceID == workspace.id)

      let general = try await ann.chat.createChannel(named: "general", in: workspace.id)
      #expect(general.joined && general.ownerID == ann.id)
      let unjoined = try await bob.chat.refreshChannels(in: workspace.id)
      #expect(unjoined.map(\.id) == [general.id] && unjoined.first?.joined == false)
      #expect(try await bob.chat.join(general.id).joined)

      let annSees = try await ann.chat.open(general.id)
      let bobSees = try await bob.chat.open(general.id)
      #expect(await annSees.caughtUp() == .live)
      #expect(await bobSees.caughtUp() == .live)
      #expect(await chatPoll { bob.chat.liveConversations == [general.id] })

      // Ann's message with an image: pending at once, then sent, and Bob's socket brings it.
      let photo = try pngFile(in: ann.directory)
      let pending = try await ann.chat.send("Hello, Bob", images: [photo], to: general.id)
      #expect(pending.state == .pending && pending.id == nil && pending.images.count == 1)
      let heard = try #require(
        await chatSnapshot(of: bobSees) { $0.messages.contains { $0.text == "Hello, Bob" } })
      let hello = try #require(heard.messages.first { $0.text == "Hello, Bob" })
      #expect(hello.state == .sent && hello.senderID == ann.id && hello.images.count == 1)
      #expect(hello.images.first?.hasPrefix("/v1/chat-images/") == true)
      #expect(hello.clientMessageID == pending.clientMessageID)
      let annHello = try #require(
        await chatSnapshot(of: annSees) { $0.messages.contains { $0.text == "Hello, Bob" && $0.state == .sent } })
      #expect(annHello.messages.filter { $0.text == "Hello, Bob" }.count == 1, "the pending copy became the sent one")
      try FileManager.default.removeItem(at: photo)  // the outbox sent its own copy

      // Bob answers; Ann's channel counts it unread until she reads it.
      _ = try await bob.chat.send("Hi, Ann", to: general.id)
      let answer = try #require(
        await chatSnapshot(of: annSees) { $0.messages.contains { $0.text == "Hi, Ann" && $0.state == .sent } })
      #expect(answer.messages.map(\.text) == ["Hello, Bob", "Hi, Ann"])
      #expect(try await ann.chat.refreshChannels(in: workspace.id).first?.unreadCount == 1)
      let lastID = try #require(answer.messages.last?.id)
      #expect(try await ann.chat.markRead(general.id, upTo: lastID) == 0)
      #expect(try await ann.chat.refreshChannels(in: workspace.id).first?.unreadCount == 0)

      // A DM room, found from either side, with its unread count and last message.
      let room = try await ann.chat.openDirectMessage(with: bob.id, in: workspace.id)
      #expect(room.conversation.name == "bob" && Set(room.members.map(\.id)) == [ann.id, bob.id])
      let same = try await bob.chat.openDirectMessage(with: ann.id, in: workspace.id)
      #expect(same.conversation.id == room.conversation.id && same.conversation.name == "ann")
      _ = try await ann.chat.send("Just between us", to: room.conversation.id)
      #expect(
        await chatPoll {
          let rooms = try await bob.chat.refreshDirectMessages(in: workspace.id)
          return rooms.first?.lastMessage?.text == "Just between us" && rooms.first?.conversation.unreadCount == 1
        })
      var bobsRooms: [[DirectMessageRoom]] = []
      for try await rooms in bob.chat.directMessages(in: workspace.id).prefix(2) { bobsRooms.append(rooms) }
      #expect(bobsRooms.first?.map(\.conversation.id) == [room.conversation.id], "stored rooms first")

      // Ownership and membership.
      let handed = try await ann.chat.transferChannel(general.id, to: bob.id)
      #expect(handed.ownerID == bob.id)
      let left = try await ann.chat.leave(general.id)
      #expect(!left.joined)
      #expect(try await bob.chat.members(ofChannel: general.id).map(\.id) == [bob.id])
      let transferred = try await ann.chat.transferWorkspace(workspace.id, to: bob.id)
      #expect(transferred.ownerID == bob.id)
      await #expect(throws: ChatError.self) { try await ann.chat.renameWorkspace(workspace.id, to: "Mine") }
      #expect(try await bob.chat.renameWorkspace(workspace.id, to: "Ours").name == "Ours")
      #expect(try await bob.sessions.updateNickname("Bobby").nickname == "Bobby")
      #expect(bob.sessions.currentUser?.nickname == "Bobby", "the session's user is the server's answer")

      // A profile image, streamed up, shown to the other member, served with an ETag.
      let avatar = try pngFile(in: ann.directory, named: "avatar.png", filler: 9)
      let annWithImage = try await ann.sessions.updateProfileImage(avatar)
      let imagePath = try #require(annWithImage.profileImage)
      #expect(ann.sessions.currentUser?.profileImage == imagePath)
      let seen = try await bob.chat.members(ofWorkspace: workspace.id).first { $0.id == ann.id }
      #expect(seen?.profileImage == imagePath)
      var fetch = URLRequest(url: URL(string: sandbox.baseURL.absoluteString + imagePath)!)
      fetch.setValue("Bearer \(try await bob.sessions.accessToken())", forHTTPHeaderField: "Authorization")
      let image = try await kind.transport.send(fetch)
      let avatarBytes = try Data(contentsOf: avatar)
      #expect(image.status == 200 && image.body == avatarBytes)
      let etag = try #require(image.header("ETag"))
      fetch.setValue(etag, forHTTPHeaderField: "If-None-Match")
      #expect(try await kind.transport.send(fetch).status == 304)

      await annSees.close()
      await bobSees.close()
      #expect(bob.chat.connectionState.isConnected, "the account's socket, not the conversation's")
      await bob.chat.appDidEnterBackground()
      #expect(await chatPoll { !bob.chat.connectionState.isConnected }, "closed in the background")
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("Bad input is refused before anything is sent: names, emails, empty, too long, too many or fake images")
    func refusals() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let ann = try await ChatUser.signUp("ann", on: sandbox, transport: TransportKind.nio.transport)
      let before = try await sandbox.control.statistics()
      func refused(_ body: () async throws -> Void) async -> ChatError.Kind? {
        do {
          try await body()
          return nil
        } catch let error as ChatError {
          return error.kind
        } catch {
          return nil
        }
      }
      #expect(await refused { _ = try await ann.chat.createWorkspace(named: "   ") } == .invalidInput)
      #expect(
        await refused { _ = try await ann.chat.createChannel(named: String(repeating: "x", count: 101), in: "w1") }
          == .invalidInput)
      #expect(await refused { try await ann.chat.invite(email: "nobody", to: "w1") } == .invalidInput)
      #expect(await refused { _ = try await ann.chat.send("  \n", to: "c1") } == .invalidInput)
      #expect(
        await refused { _ = try await ann.chat.send(String(repeating: "a", count: 10_001), to: "c1") } == .invalidInput)
      let photos = try (0..<6).map { try pngFile(in: ann.directory, named: "p\($0).png") }
      #expect(await refused { _ = try await ann.chat.send("six", images: photos, to: "c1") } == .invalidInput)
      let text = ann.directory.appendingPathComponent("notes.txt")
      try Data("not an image".utf8).write(to: text)
      #expect(await refused { _ = try await ann.chat.send("text file", images: [text], to: "c1") } == .invalidInput)
      let missing = ann.directory.appendingPathComponent("gone.png")
      #expect(await refused { _ = try await ann.chat.send("missing", images: [missing], to: "c1") } == .invalidInput)
      let big = ann.directory.appendingPathComponent("big.png")
      try (Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(count: 8 << 20)).write(to: big)
      #expect(await refused { _ = try await ann.chat.send("big", images: [big], to: "c1") } == .invalidInput)
      await #expect(throws: SessionError.self) { try await ann.sessions.updateProfileImage(text) }
      await #expect(throws: SessionError.self) { try await ann.sessions.updateProfileImage(big) }
      #expect(try await ann.chat.outboxCount() == 0)
      let after = try await sandbox.control.statistics()
      #expect(
        after.requests("POST /v1/conversations/:conversation/messages")
          == before.requests("POST /v1/conversations/:conversation/messages"),
        "nothing was sent")
      await ann.chat.shutDown()
      await sandbox.stop()
    }

    @Test("A send the server refuses fails with its reason and can be resent; a member's resend is then sent")
    func refusedSendFailsAndResends() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let ann = try await ChatUser.signUp("ann", on: sandbox, transport: TransportKind.nio.transport)
      let bob = try await ChatUser.signUp("bob", on: sandbox, transport: TransportKind.nio.transport)
      let workspace = try await ann.chat.createWorkspace(named: "Keel")
      try await ann.chat.invite(email: "bob@example.com", to: workspace.id)
      let channel = try await ann.chat.createChannel(named: "general", in: workspace.id)

      // Bob has not joined: the server refuses his message (E403), and the refusal does not hold up his next one.
      let conversation = try await bob.chat.open(channel.id)
      let pending = try await bob.chat.send("Let me in", to: channel.id)
      let failed = try #require(
        await chatSnapshot(of: conversation) { $0.messages.contains { $0.state == .failed } })
      let message = try #require(failed.messages.first { $0.clientMessageID == pending.clientMessageID })
      #expect(message.failureReason?.contains("E403") == true)
      #expect(await chatPoll { try await bob.chat.outboxCount() == 0 })

      _ = try await bob.chat.join(channel.id)
      try await bob.chat.resend(message)
      let sent = try #require(
        await chatSnapshot(of: conversation) { snapshot in
          snapshot.messages.contains { $0.clientMessageID == pending.clientMessageID && $0.state == .sent }
        })
      #expect(sent.messages.filter { $0.text == "Let me in" }.count == 1)
      await #expect(throws: ChatError.self) { try await bob.chat.resend(sent.messages[0]) }
      await conversation.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("After shutDown nothing follows the socket: a conversation opens closed, a list ends empty, none connects")
    func nothingFollowsAfterShutDown() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let ann = try await ChatUser.signUp("ann", on: sandbox, transport: TransportKind.nio.transport)
      let workspace = try await ann.chat.createWorkspace(named: "Keel")
      let channel = try await ann.chat.createChannel(named: "general", in: workspace.id)
      await ann.chat.shutDown()

      let conversation = try await ann.chat.open(channel.id)
      #expect(conversation.snapshot.status == .closed)
      var lists: [[Workspace]] = []
      for try await list in ann.chat.workspaces() { lists.append(list) }
      #expect(lists.isEmpty)
      #expect(ann.chat.liveConversations.isEmpty)
      #expect(!ann.chat.connectionState.isConnected)
      #expect(try await sandbox.control.statistics().counter("socketIOConnections") == 0)
      await conversation.close()
      await sandbox.stop()
    }

    @Test(
      "Names resolve to conversations: an id, a channel's name, a DM partner's id, email or nickname; one ambiguous")
    func names() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let transport = TransportKind.nio.transport
      let ann = try await ChatUser.signUp("ann", on: sandbox, transport: transport)
      let ada = try await ChatUser.signUp("ada", on: sandbox, transport: transport)
      let eve = try await ChatUser.signUp("eve", on: sandbox, transport: transport)
      let workspace = try await ann.chat.createWorkspace(named: "Keel")
      for email in ["ada@example.com", "eve@example.com"] { try await ann.chat.invite(email: email, to: workspace.id) }
      let general = try await ann.chat.createChannel(named: "General", in: workspace.id)
      let withAda = try await ann.chat.openDirectMessage(with: ada.id, in: workspace.id)
      let withEve = try await ann.chat.openDirectMessage(with: eve.id, in: workspace.id)

      #expect(try await ann.chat.workspace(named: nil).id == workspace.id)
      #expect(try await ann.chat.workspace(named: "keel").id == workspace.id)
      for name in [general.id, "general", "#GENERAL"] {
        #expect(try await ann.chat.conversation(named: name, in: workspace.id).id == general.id, "\(name)")
      }
      for name in [withAda.conversation.id, "@ada", "@\(ada.id)", "@ada@example.com"] {
        #expect(try await ann.chat.conversation(named: name, in: workspace.id).id == withAda.conversation.id)
      }
      // Eve takes Ada's nickname: "@ada" is now two people, refused with both listed; her email still says whom.
      _ = try await eve.sessions.updateNickname("ada")
      let ambiguous = await #expect(throws: ChatError.self) {
        try await ann.chat.conversation(named: "@ada", in: workspace.id)
      }
      #expect(ambiguous?.kind == .ambiguous)
      #expect(Set(ambiguous?.candidates.map(\.id) ?? []) == [ada.id, eve.id])
      #expect(
        try await ann.chat.conversation(named: "@eve@example.com", in: workspace.id).id == withEve.conversation.id)
      for (name, kind) in [("#random", ChatError.Kind.notFound), ("@nobody", .notFound)] {
        let error = await #expect(throws: ChatError.self) {
          try await ann.chat.conversation(named: name, in: workspace.id)
        }
        #expect(error?.kind == kind, "\(name)")
      }
      let none = await #expect(throws: ChatError.self) { try await ann.chat.workspace(named: "Elsewhere") }
      #expect(none?.kind == .notFound)
      for user in [ann, ada, eve] { await user.chat.shutDown() }
      await sandbox.stop()
    }

    @Test("Only the owner renames and deletes a channel and a workspace; each store then forgets what was deleted")
    func renameAndDelete() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let transport = TransportKind.nio.transport
      let ann = try await ChatUser.signUp("ann", on: sandbox, transport: transport)
      let bob = try await ChatUser.signUp("bob", on: sandbox, transport: transport)
      let workspace = try await ann.chat.createWorkspace(named: "Keel")
      try await ann.chat.invite(email: "bob@example.com", to: workspace.id)
      let general = try await ann.chat.createChannel(named: "general", in: workspace.id)
      let random = try await ann.chat.createChannel(named: "random", in: workspace.id)
      _ = try await bob.chat.join(general.id)
      _ = try await ann.chat.send("Hello", to: general.id)
      #expect(await chatPoll { try await ann.chat.outboxCount() == 0 })
      let seen = try await ann.chat.open(general.id)
      #expect(await seen.caughtUp() == .live)
      await seen.close()
      #expect(try await ann.chat.store.messageCount(in: general.id) == 1)

      func refused(_ body: () async throws -> Void) async -> String? {
        await #expect(throws: ChatError.self) { try await body() }?.requestFailure?.serverCode
      }
      #expect(await refused { _ = try await bob.chat.renameChannel(general.id, to: "mine") } == "E403")
      #expect(await refused { try await bob.chat.deleteChannel(general.id) } == "E403")
      #expect(await refused { _ = try await bob.chat.renameWorkspace(workspace.id, to: "Mine") } == "E403")
      #expect(await refused { try await bob.chat.deleteWorkspace(workspace.id) } == "E403")

      #expect(try await ann.chat.renameChannel(general.id, to: "lounge").name == "lounge")
      #expect(try await bob.chat.refreshChannels(in: workspace.id).map(\.name).sorted() == ["lounge", "random"])
      try await ann.chat.deleteChannel(general.id)
      #expect(try await ann.chat.store.conversation(general.id) == nil)
      #expect(try await ann.chat.store.messageCount(in: general.id) == 0, "its messages are forgotten too")
      #expect(try await bob.chat.refreshChannels(in: workspace.id).map(\.id) == [random.id])

      #expect(try await ann.chat.renameWorkspace(workspace.id, to: "Keel HQ").name == "Keel HQ")
      #expect(try await bob.chat.refreshWorkspaces().map(\.name) == ["Keel HQ"])
      try await ann.chat.deleteWorkspace(workspace.id)
      #expect(try await ann.chat.store.workspaces().isEmpty)
      #expect(try await ann.chat.store.conversation(random.id) == nil)
      #expect(try await bob.chat.refreshWorkspaces().isEmpty)
      for user in [ann, bob] { await user.chat.shutDown() }
      await sandbox.stop()
    }
  }
}
