import Chat
import Domain
import Foundation
import Logging
import NIOTransports
import Networking
import Persistence
import Realtime
import Sandbox
import TestSupport
import Testing

extension ChatAgainstSandbox {
  /// The chat's sync rules against the Sandbox: the store first, then catch-up, then the socket; catch-up after every
  /// reconnection; the gap bound; no loss and no duplicates through dropped sockets, duplicated and reordered pushes;
  /// an outbox that sends in order, once, through a network that fails.
  @Suite("Chat sync and outbox against the Sandbox", .timeLimit(.minutes(3)))
  struct ChatSyncIntegrationTests {
    /// Ann and Bob, both in one workspace's channel.
    func pair(
      _ sandbox: RunningSandbox, bobConfiguration: ChatConfiguration = .testing,
      bobTransport: (any HTTPTransport)? = nil
    ) async throws -> (ann: ChatUser, bob: ChatUser, channel: String) {
      let transport = TransportKind.nio.transport
      let ann = try await ChatUser.signUp("ann", on: sandbox, transport: transport)
      let bob = try await ChatUser.signUp(
        "bob", on: sandbox, transport: bobTransport ?? transport, configuration: bobConfiguration)
      let workspace = try await ann.chat.createWorkspace(named: "Keel")
      try await ann.chat.invite(email: "bob@example.com", to: workspace.id)
      let channel = try await ann.chat.createChannel(named: "general", in: workspace.id)
      _ = try await bob.chat.join(channel.id)
      return (ann, bob, channel.id)
    }

    /// Sends `texts` from `user` and waits until the outbox has sent them all.
    func send(_ texts: [String], from user: ChatUser, to conversation: String) async throws {
      for text in texts { _ = try await user.chat.send(text, to: conversation) }
      #expect(await chatPoll { try await user.chat.outboxCount() == 0 })
    }

    @Test("Stored messages show first, the catch-up brings the rest; reopening shows what was stored, then what is new")
    func storeThenCatchUp() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let (ann, bob, channel) = try await pair(sandbox)
      try await send((0..<30).map { "first \($0)" }, from: ann, to: channel)
      // Each catch-up's first page waits a second, so that what the store showed before it can be seen.
      try await sandbox.control.addFault(
        SandboxFault(route: "/v1/conversations/\(channel)/messages", method: "GET", latency: .seconds(1)))

      let first = try await bob.chat.open(channel)
      #expect(first.snapshot.messages.isEmpty, "nothing stored yet")
      #expect(await first.caughtUp() == .live)
      #expect(first.snapshot.messages.map(\.text) == (0..<30).map { "first \($0)" })
      await first.close()
      // Away from the app: the socket, which would store what comes meanwhile, is closed.
      await bob.chat.appDidEnterBackground()

      try await send((0..<10).map { "second \($0)" }, from: ann, to: channel)
      let again = try await bob.chat.open(channel)
      #expect(again.snapshot.messages.count == 30, "the store answers before the server")
      #expect(await again.caughtUp() == .live)
      let texts = again.snapshot.messages.map(\.text)
      #expect(texts.suffix(40) == ((0..<30).map { "first \($0)" } + (0..<10).map { "second \($0)" })[...])
      #expect(try await bob.chat.store.messageCount(in: channel) == 40)
      await again.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("A gap past the bound starts again from the newest page; older pages load from the server")
    func gapBound() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      var small = ChatConfiguration.testing
      small.pageSize = 10
      small.catchUpPageSize = 10
      small.maxCatchUpMessages = 20
      let (ann, bob, channel) = try await pair(sandbox, bobConfiguration: small)
      try await send((0..<5).map { "old \($0)" }, from: ann, to: channel)
      let first = try await bob.chat.open(channel)
      #expect(await first.caughtUp() == .live)
      await first.close()

      try await send((0..<45).map { "new \($0)" }, from: ann, to: channel)
      let before = try await sandbox.control.statistics().requests("GET /v1/conversations/:conversation/messages")
      let again = try await bob.chat.open(channel)
      #expect(await again.caughtUp() == .live)
      let pages =
        try await sandbox.control.statistics().requests("GET /v1/conversations/:conversation/messages") - before
      #expect(pages <= 4, "two pages of the gap, then the newest page, not five pages")
      #expect(again.snapshot.messages.map(\.text) == (35..<45).map { "new \($0)" })
      #expect(try await bob.chat.store.messageCount(in: channel) == 10, "the gap's messages were dropped")
      #expect(try await again.loadOlder())
      #expect(again.snapshot.messages.map(\.text) == (25..<45).map { "new \($0)" })
      await again.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("A message too large for Bob's client shows as unavailable, and the messages after it come whole")
    func messageTooLargeToTake() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      // Bob's client takes at most 20,000 bytes of response: one message of 27,000 (9,000 three-byte characters,
      // within the 10,000 characters a text may have) is more than it can take alone.
      let capped = NIOHTTPTransport(
        configuration: .init(
          connectTimeout: .seconds(60), idleConnectionTimeout: .seconds(1), maxResponseBodySize: 20_000))
      let (ann, bob, channel) = try await pair(sandbox, bobTransport: capped)
      try await send(["before"], from: ann, to: channel)
      let first = try await bob.chat.open(channel)
      #expect(await first.caughtUp() == .live)
      await first.close()
      // The socket would bring the long message whole: only the catch-up's pages are capped.
      await bob.chat.appDidEnterBackground()

      let long = String(repeating: "€", count: 9_000)
      try await send(["small 0", long] + (1...3).map { "small \($0)" }, from: ann, to: channel)
      let again = try await bob.chat.open(channel)
      #expect(await again.caughtUp() == .live)
      let messages = again.snapshot.messages
      #expect(messages.map(\.text) == ["before", "small 0", "", "small 1", "small 2", "small 3"])
      #expect(messages.map(\.isUnavailable) == [false, false, true, false, false, false])
      #expect(messages[2].senderID == ann.id && messages[2].id != nil && messages[2].state == .sent)
      await again.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
      try await capped.shutdown()
    }

    @Test("A sync point the server does not know (E404) starts again from the newest page, and the catch-up goes on")
    func unknownSyncPoint() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let (ann, bob, channel) = try await pair(sandbox)
      try await send((0..<3).map { "old \($0)" }, from: ann, to: channel)
      let first = try await bob.chat.open(channel)
      #expect(await first.caughtUp() == .live)
      await first.close()

      // The message Bob's last catch-up ended with is gone from the server (another server's store, say).
      try await bob.chat.store.setSyncPoint("m-gone", in: channel)
      try await send((0..<4).map { "new \($0)" }, from: ann, to: channel)
      let again = try await bob.chat.open(channel)
      #expect(await again.caughtUp() == .live)
      let texts = (0..<3).map { "old \($0)" } + (0..<4).map { "new \($0)" }
      #expect(again.snapshot.messages.map(\.text) == texts)
      let newest = try #require(again.snapshot.messages.last?.id)
      #expect(try await bob.chat.store.syncPoint(in: channel) == newest, "the newest page's last message")
      await again.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("200 messages while Bob's socket drops 50 times and pushes are duplicated and reordered: each once, in order")
    func noLossNoDuplicates() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let (ann, bob, channel) = try await pair(sandbox)
      let conversation = try await bob.chat.open(channel)
      #expect(await conversation.caughtUp() == .live)
      try await sandbox.control.socketIOFault(duplicate: true, reorder: .milliseconds(30))

      let texts = (0..<chatNoLossScale.messages).map { String(format: "message %03d", $0) }
      // Each drop waits for Bob's socket to be back (a connection of its own), so that every drop cuts a live one.
      let drops = Task {
        var cut = 0
        var last: String?
        for _ in 0..<chatNoLossScale.drops {
          var sid: String?
          let back = await chatPoll(for: .seconds(60)) {
            guard case .connected(let now) = bob.chat.connectionState, now != last else { return false }
            sid = now
            return true
          }
          guard back else { break }
          last = sid
          if try await sandbox.control.socketIOFault(drop: true) > 0 { cut += 1 }
        }
        return cut
      }
      try await send(texts, from: ann, to: channel)
      #expect(try await drops.value == chatNoLossScale.drops, "every drop cut a live socket of Bob's")
      let settled = await chatPoll {
        try await bob.chat.store.messageCount(in: channel) == texts.count
          && conversation.snapshot.messages.count == texts.count && conversation.snapshot.status == .live
      }
      let storedCount = try await bob.chat.store.messageCount(in: channel)
      #expect(
        settled,
        """
        stored \(storedCount), shown \(conversation.snapshot.messages.count), \(conversation.snapshot.status), \
        socket \(bob.chat.connectionState)
        """)
      let stored = try await bob.chat.store.messages(in: channel, limit: 1_000)
      #expect(stored.map(\.text) == texts, "exactly the messages sent, in the order sent")
      #expect(Set(stored.compactMap(\.id)).count == texts.count && stored.allSatisfy { $0.state == .sent })
      #expect(conversation.snapshot.messages.map(\.text) == texts)
      await conversation.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("A catch-up the server fails (503, twice) is behind, then retried on its own until it has the messages")
    func failedCatchUpRetries() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let (ann, bob, channel) = try await pair(sandbox)
      let texts = (0..<3).map { "before \($0)" }
      try await send(texts, from: ann, to: channel)
      try await sandbox.control.addFault(
        SandboxFault(route: "/v1/conversations/\(channel)/messages", method: "GET", status: 503, count: 2))

      // In the background, with no socket to connect and catch up: each attempt after the first is the sync's own.
      await bob.chat.appDidEnterBackground()
      let conversation = try await bob.chat.open(channel)
      let first = await conversation.caughtUp()
      guard case .behind(let reason) = first else {
        Issue.record("the first catch-up was not behind: \(first)")
        return
      }
      #expect(reason.contains("503"), "\(reason)")
      #expect(
        await chatPoll { conversation.snapshot.messages.map(\.text) == texts }, "\(conversation.snapshot.status)")
      #expect(
        try await sandbox.control.statistics().responses(
          "GET /v1/conversations/:conversation/messages", status: 503) == 2)
      await bob.chat.appWillEnterForeground()
      #expect(await chatPoll { conversation.snapshot.status == .live }, "\(conversation.snapshot.status)")
      await conversation.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("Offline, then answers lost after the server stored them: the outbox sends in order, each message once")
    func outboxThroughFailures() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let (ann, bob, channel) = try await pair(sandbox)
      let route = "/v1/conversations/\(channel)/messages"
      try await sandbox.control.addFault(SandboxFault(route: route, method: "POST", dropConnectionRate: 1))
      let annSees = try await ann.chat.open(channel)
      for number in 0..<20 { _ = try await ann.chat.send("offline \(number)", to: channel) }
      #expect(await chatPoll { annSees.snapshot.messages.count == 20 })
      #expect(annSees.snapshot.messages.allSatisfy { $0.state == .pending }, "shown at once, pending")
      #expect(try await ann.chat.outboxCount() == 20)

      // Back online, but half the answers are lost after the server stored the message.
      try await sandbox.control.removeFaults()
      try await sandbox.control.addFault(SandboxFault(route: route, method: "POST", dropResponseRate: 0.5, seed: 7))
      #expect(await chatPoll { try await ann.chat.outboxCount() == 0 })
      try await sandbox.control.removeFaults()

      let bobSees = try await bob.chat.open(channel)
      #expect(await bobSees.caughtUp() == .live)
      #expect(bobSees.snapshot.messages.map(\.text) == (0..<20).map { "offline \($0)" }, "in order, each once")
      let resends = try await sandbox.control.statistics().responses(
        "POST /v1/conversations/:conversation/messages", status: 200)
      #expect(resends > 0, "some answers were lost and the same message went again")
      #expect(
        await chatPoll {
          annSees.snapshot.messages.allSatisfy { $0.state == .sent } && annSees.snapshot.messages.count == 20
        })
      await annSees.close()
      await bobSees.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("The next message goes while the one before it is still stored as sent; both stay in the outbox till then")
    func sendsWhileTheLastSettles() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let (ann, bob, channel) = try await pair(sandbox)
      let route = "POST /v1/conversations/:conversation/messages"
      // Ann's store held: her pending copies and her sent copies wait for it; her outbox, a database of its own, does
      // not. The sender that waited for each message to be stored as sent would never send the second one.
      let writer = HeldWriter(try ann.chat.store.pool)
      let first = Task { try await ann.chat.send("first", to: channel) }
      #expect(await chatPoll { try await sandbox.control.statistics().requests(route) == 1 })
      let second = Task { try await ann.chat.send("second", to: channel) }
      #expect(
        await chatPoll { try await sandbox.control.statistics().requests(route) == 2 },
        "the second message goes while the first waits to be stored as sent")
      #expect(try await ann.chat.outboxCount() == 2, "neither is taken off the outbox before it is stored as sent")
      writer.release()
      let pending = try await [first.value, second.value]
      #expect(await chatPoll { try await ann.chat.outboxCount() == 0 })
      for message in pending { #expect(await ann.chat.outcome(of: message).state == .sent) }
      let bobSees = try await bob.chat.open(channel)
      #expect(await bobSees.caughtUp() == .live)
      #expect(bobSees.snapshot.messages.map(\.text) == ["first", "second"])
      await bobSees.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("The socket's token expires: its CONNECT is refused, the session refreshes once, and it joins again")
    func socketTokenRefresh() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let (ann, bob, channel) = try await pair(sandbox)
      let conversation = try await bob.chat.open(channel)
      #expect(await conversation.caughtUp() == .live)
      let refreshesBefore = try await sandbox.control.statistics().counter("refreshes")
      try await sandbox.control.expireTokens()
      try await sandbox.control.socketIOFault(drop: true)
      _ = try await ann.chat.send("after the expiry", to: channel)
      #expect(
        await chatPoll { conversation.snapshot.messages.contains { $0.text == "after the expiry" } })
      #expect(await chatPoll { bob.chat.connectionState.isConnected })
      #expect(try await sandbox.control.statistics().counter("refreshes") > refreshesBefore)
      await conversation.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("Background closes the socket; foreground reconnects and catches up on what came meanwhile")
    func lifecycle() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let (ann, bob, channel) = try await pair(sandbox)
      let conversation = try await bob.chat.open(channel)
      #expect(await conversation.caughtUp() == .live)
      await bob.chat.appDidEnterBackground()
      #expect(bob.chat.connectionState == .suspended && bob.chat.liveConversations.isEmpty)
      try await send(["while away"], from: ann, to: channel)
      await bob.chat.appWillEnterForeground()
      #expect(await chatPoll { conversation.snapshot.messages.map(\.text) == ["while away"] })
      #expect(await chatPoll { bob.chat.liveConversations == [channel] })
      await conversation.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("Pushes the server drops while the connection stays up are found by the open conversation's silence check")
    func silenceFound() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      var configuration = ChatConfiguration.testing
      configuration.silenceCheckInterval = .seconds(2)
      let (ann, bob, channel) = try await pair(sandbox, bobConfiguration: configuration)
      let conversation = try await bob.chat.open(channel)
      #expect(await conversation.caughtUp() == .live)
      try await send(["before"], from: ann, to: channel)
      #expect(await chatPoll { conversation.snapshot.messages.map(\.text) == ["before"] })

      // Three seconds in which the server sends nothing (the socket stays up: pings come every 25 s).
      try await sandbox.control.socketIOFault(silence: .seconds(3))
      try await send(["during 1", "during 2"], from: ann, to: channel)
      #expect(
        await chatPoll(for: .seconds(30)) {
          conversation.snapshot.messages.map(\.text) == ["before", "during 1", "during 2"]
        }, "\(conversation.snapshot.messages.map(\.text))")
      #expect(conversation.snapshot.messages.map(\.seq) == [1, 2, 3])
      await conversation.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("A push lost in the middle of a burst is caught up as soon as the next one arrives, not at the next check")
    func gapFound() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      var configuration = ChatConfiguration.testing
      // A check ten minutes off, and two minutes to find the gap: under the whole suite the catch-up may take a while,
      // but never as long as the check.
      configuration.silenceCheckInterval = .seconds(600)
      let (ann, bob, channel) = try await pair(sandbox, bobConfiguration: configuration)
      let conversation = try await bob.chat.open(channel)
      #expect(await conversation.caughtUp() == .live)
      try await send(["one"], from: ann, to: channel)
      #expect(await chatPoll { conversation.snapshot.messages.map(\.text) == ["one"] })

      // The push of "two" is lost (Ann's own socket is closed: hers are not counted); "three" arrives.
      try await sandbox.control.socketIOFault(loseNext: 1)
      try await send(["two", "three"], from: ann, to: channel)
      #expect(
        await chatPoll(for: .seconds(120)) { conversation.snapshot.messages.map(\.text) == ["one", "two", "three"] },
        "well before the 600 s check: \(conversation.snapshot.messages.map(\.text))")
      await conversation.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }
  }
}
