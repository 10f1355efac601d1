import Chat
import Domain
import Foundation
import KeelConcurrency
import Logging
import Sandbox
import Testing

extension ChatAgainstSandbox {
  /// Edits, deletions, reactions and replies against the Sandbox: through the outbox (offline, answers lost), caught
  /// up by a member who was away, pushed live through dropped sockets, refused and put back.
  @Suite("Chat changes against the Sandbox", .timeLimit(.minutes(3)))
  struct ChatChangesIntegrationTests {
    let sync = ChatSyncIntegrationTests()

    /// Whether `conversation` shows what `condition` wants within a minute.
    func shows(_ conversation: ChatConversation, _ condition: @escaping (ConversationSnapshot) -> Bool) async -> Bool {
      await chatPoll { condition(conversation.snapshot) }
    }

    /// The message of `conversation` whose text is `text`, as `user`'s store has it.
    func stored(_ text: String, of user: ChatUser, in conversation: String) async throws -> Message {
      let all = try await user.chat.store.messages(in: conversation, limit: 1_000)
      return try #require(all.first { $0.text == text }, "\(text) is not stored")
    }

    @Test("An edit, a deletion and a reaction made offline reach a member who was away exactly once, in order")
    func offlineChangesOnce() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let (ann, bob, channel) = try await sync.pair(sandbox)
      try await sync.send(["one", "two", "three"], from: ann, to: channel)
      let bobSees = try await bob.chat.open(channel)
      #expect(await bobSees.caughtUp() == .live)
      #expect(await chatPoll { bobSees.snapshot.messages.count == 3 })
      await bobSees.close()
      // Away: no socket, so what changes meanwhile comes to Bob only through his next catch-up.
      await bob.chat.appDidEnterBackground()

      let annSees = try await ann.chat.open(channel)
      #expect(await annSees.caughtUp() == .live)
      let (one, two, three) = (
        try await stored("one", of: ann, in: channel), try await stored("two", of: ann, in: channel),
        try await stored("three", of: ann, in: channel)
      )
      let paths =
        [one, two].map { "/v1/conversations/\(channel)/messages/\($0.id ?? "")" }
        + ["/v1/conversations/\(channel)/messages/\(three.id ?? "")/reactions"]
      for path in paths { try await sandbox.control.addFault(SandboxFault(route: path, dropConnectionRate: 1)) }
      let changes = [
        try await ann.chat.edit(one, text: "one, edited"), try await ann.chat.delete(two),
        try await ann.chat.react("👍", to: three),
      ]
      #expect(
        await shows(annSees) { snapshot in
          snapshot.messages.map(\.text) == ["one, edited", "", "three"] && snapshot.messages[1].isDeleted
            && snapshot.messages[2].reactions == [Message.Reaction(emoji: "👍", userIDs: [ann.id])]
        }, "shown at once, while the server cannot be reached")
      #expect(try await ann.chat.outboxCount() == 3)

      // Back, but half the answers are lost after the server applied the change: each goes again, applied once.
      try await sandbox.control.removeFaults()
      for path in paths {
        try await sandbox.control.addFault(SandboxFault(route: path, dropResponseRate: 0.5, seed: 11))
      }
      for change in changes { #expect(try await ann.chat.outcome(of: change)) }
      #expect(try await ann.chat.outboxCount() == 0)
      try await sandbox.control.removeFaults()

      await bob.chat.appWillEnterForeground()
      let again = try await bob.chat.open(channel)
      #expect(await again.caughtUp() == .live)
      let messages = again.snapshot.messages
      #expect(messages.map(\.text) == ["one, edited", "", "three"])
      #expect(messages.map(\.isDeleted) == [false, true, false])
      #expect(messages[0].editedAt != nil)
      #expect(messages[2].reactions == [Message.Reaction(emoji: "👍", userIDs: [ann.id])])
      // Three sends, then one change each, in the order made: a change applied twice would have taken a number more.
      #expect(messages.map(\.version) == [4, 5, 6])
      await again.close()
      await annSees.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test(
      "50 reactions added and 20 taken away by two members at once, through dropped sockets: the same counts on both")
    func reactionsThroughDrops() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let (ann, bob, channel) = try await sync.pair(sandbox)
      try await sync.send(["react here"], from: ann, to: channel)
      let annSees = try await ann.chat.open(channel)
      let bobSees = try await bob.chat.open(channel)
      #expect(await annSees.caughtUp() == .live)
      #expect(await bobSees.caughtUp() == .live)
      let emoji = "😀😁😂🤣😃😄😅😆😉😊😋😎😍😘🥰😗😙😚🙂🤗🤩🤔🤨😐😑".map(String.init)
      let drops = Task {
        for _ in 0..<10 {
          _ = try? await sandbox.control.socketIOFault(drop: true)
          try? await Task.sleep(for: .milliseconds(50))
        }
      }
      try await withThrowingTaskGroup(of: Void.self) { group in
        for user in [ann, bob] {
          group.addTask {
            let message = try await stored("react here", of: user, in: channel)
            for each in emoji { _ = try await user.chat.react(each, to: message) }
            for each in emoji.prefix(10) { _ = try await user.chat.removeReaction(each, from: message) }
          }
        }
        try await group.waitForAll()
      }
      await drops.value
      for user in [ann, bob] { #expect(await chatPoll { try await user.chat.outboxCount() == 0 }) }
      let expected = Set(emoji.dropFirst(10))
      for (user, sees) in [(ann, annSees), (bob, bobSees)] {
        let settled = await shows(sees) { snapshot in
          guard let reactions = snapshot.messages.first?.reactions else { return false }
          return Set(reactions.map(\.emoji)) == expected
            && reactions.allSatisfy { Set($0.userIDs) == [ann.id, bob.id] }
        }
        #expect(settled, "\(user.id): \(sees.snapshot.messages.first?.reactions ?? [])")
      }
      await annSees.close()
      await bobSees.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("Change pushes duplicated and reordered: a member live sees the newest of each message, never an older copy")
    func duplicatedAndReorderedPushes() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let (ann, bob, channel) = try await sync.pair(sandbox)
      try await sync.send(["draft", "react here"], from: ann, to: channel)
      let bobSees = try await bob.chat.open(channel)
      #expect(await bobSees.caughtUp() == .live)
      #expect(await chatPoll { bobSees.snapshot.messages.count == 2 })
      try await sandbox.control.socketIOFault(duplicate: true, reorder: .milliseconds(30))

      let draft = try await stored("draft", of: ann, in: channel)
      let target = try await stored("react here", of: ann, in: channel)
      let emoji = "👍🎉🚀😀😁😂🤣😃😄😅".map(String.init)
      for number in 1...10 {
        #expect(try await ann.chat.outcome(of: try await ann.chat.edit(draft, text: "draft \(number)")))
        #expect(try await ann.chat.outcome(of: try await ann.chat.react(emoji[number - 1], to: target)))
      }
      // Two sends, then twenty changes: the newest copy of each message carries its last number.
      let settled = await shows(bobSees) { snapshot in
        snapshot.messages.map(\.text) == ["draft 10", "react here"]
          && snapshot.messages[1].reactions.map(\.emoji) == emoji
          && snapshot.messages.map(\.version) == [21, 22]
      }
      #expect(
        settled,
        "\(bobSees.snapshot.messages.map { ($0.text, $0.version ?? 0, $0.reactions.map(\.emoji)) })")
      // Every push came twice and out of order: the store never let an older copy replace a newer one.
      let stored = try await bob.chat.store.messages(in: channel, limit: 10)
      #expect(stored.map(\.text) == ["draft 10", "react here"] && stored.map(\.version) == [21, 22])
      await bobSees.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("Replies count on their parent, which shows the newest; a thread pages them; a deleted reply counts no more")
    func replies() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let (ann, bob, channel) = try await sync.pair(sandbox)
      try await sync.send(["question"], from: ann, to: channel)
      let annSees = try await ann.chat.open(channel)
      let bobSees = try await bob.chat.open(channel)
      #expect(await bobSees.caughtUp() == .live)
      let question = try await stored("question", of: bob, in: channel)
      var replies: [Message] = []
      for text in ["answer", "another answer"] {
        replies.append(await bob.chat.outcome(of: try await bob.chat.reply(text, to: question)))
      }
      #expect(replies.allSatisfy { $0.state == .sent && $0.replyTo == question.id })
      #expect(
        await shows(annSees) { snapshot in
          snapshot.messages.first?.replyCount == 2 && snapshot.messages.first?.lastReplyID == replies[1].id
        }, "\(annSees.snapshot.messages.first.map { ($0.replyCount, $0.lastReplyID) } as Any)")
      let page = try await ann.chat.replies(to: question, limit: 1)
      #expect(page.replies.map(\.text) == ["another answer"] && page.hasMore)
      let older = try await ann.chat.replies(to: question, before: page.replies.first, limit: 1)
      #expect(older.replies.map(\.text) == ["answer"] && !older.hasMore)

      #expect(try await bob.chat.outcome(of: try await bob.chat.delete(replies[1])))
      #expect(
        await shows(annSees) { snapshot in
          snapshot.messages.first?.replyCount == 1 && snapshot.messages.first?.lastReplyID == replies[0].id
        })
      await annSees.close()
      await bobSees.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("Another member's message is refused before anything is sent; a change the server refuses is put back")
    func refusals() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let (ann, bob, channel) = try await sync.pair(sandbox)
      try await sync.send(["mine"], from: ann, to: channel)
      let annSees = try await ann.chat.open(channel)
      let bobSees = try await bob.chat.open(channel)
      #expect(await bobSees.caughtUp() == .live)
      let theirs = try await stored("mine", of: bob, in: channel)
      for attempt in [{ try await bob.chat.edit(theirs, text: "not yours") }, { try await bob.chat.delete(theirs) }] {
        let error = await #expect(throws: ChatError.self) { _ = try await attempt() }
        #expect(error?.kind == .notPermitted)
      }
      #expect(try await bob.chat.outboxCount() == 0)
      for emoji in ["", "1", "ab", "👍👍"] {
        let error = await #expect(throws: ChatError.self) { _ = try await bob.chat.react(emoji, to: theirs) }
        #expect(error?.kind == .invalidInput, "\(emoji)")
      }

      #expect(await annSees.caughtUp() == .live)
      let mine = try await stored("mine", of: ann, in: channel)
      try await sandbox.control.addFault(
        SandboxFault(route: "/v1/conversations/\(channel)/messages/\(mine.id ?? "")", method: "PATCH", status: 404))
      let change = try await ann.chat.edit(mine, text: "never")
      let error = await #expect(throws: ChatError.self) { _ = try await ann.chat.outcome(of: change) }
      #expect(error?.kind == .notFound)
      #expect(await shows(annSees) { $0.messages.map(\.text) == ["mine"] && $0.messages[0].editedAt == nil })
      await annSees.close()
      await bobSees.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    /// Who `conversation` shows typing once it shows `expected`, within a minute.
    func typing(_ conversation: ChatConversation, _ expected: [String]) async -> Bool {
      await chatPoll { conversation.typingUserIDs == expected }
    }

    @Test("Typing shows on the other side at once, and ends by itself after the timeout")
    func typingTimesOut() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      // 20 s, not the default 5: long enough that a run under the whole suite still sees the indicator before it
      // ends (at 300 ms, both the poll and the update stream, which keeps only the newest, missed it).
      var quick = ChatConfiguration.testing
      quick.typingTimeout = .seconds(20)
      let (ann, bob, channel) = try await sync.pair(sandbox, bobConfiguration: quick)
      let annSees = try await ann.chat.open(channel)
      let bobSees = try await bob.chat.open(channel)
      #expect(await annSees.caughtUp() == .live)
      #expect(await bobSees.caughtUp() == .live)
      let updates = Following(bobSees.typingUpdates())
      await annSees.userIsTyping()
      #expect(await typing(bobSees, [ann.id]))
      #expect(await typing(bobSees, []), "ended by itself")
      #expect(await updates.until { $0.isEmpty } != nil)
      #expect(updates.values.withLock { $0 }.contains([ann.id]))
      #expect(annSees.typingUserIDs.isEmpty, "one's own typing is not shown back")
      await annSees.close()
      await bobSees.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("Typing ends when the message is sent, or when the user stops, long before the timeout")
    func typingEndsWithTheMessage() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      var patient = ChatConfiguration.testing
      patient.typingTimeout = .seconds(120)
      let (ann, bob, channel) = try await sync.pair(sandbox, bobConfiguration: patient)
      let annSees = try await ann.chat.open(channel)
      let bobSees = try await bob.chat.open(channel)
      #expect(await annSees.caughtUp() == .live)
      #expect(await bobSees.caughtUp() == .live)
      await annSees.userIsTyping()
      #expect(await typing(bobSees, [ann.id]))
      let typed = try await ann.chat.send("typed", to: channel)
      #expect(await typing(bobSees, []), "sending ends it")
      // The message's own push ends Ann's typing on Bob's side too: it must be in before she types again, or it could
      // end the new indicator between two looks.
      #expect(await ann.chat.outcome(of: typed).state == .sent)
      #expect(await shows(bobSees) { $0.messages.contains { $0.text == "typed" } })
      await annSees.userIsTyping()
      #expect(await typing(bobSees, [ann.id]))
      await annSees.userStoppedTyping()
      #expect(await typing(bobSees, []), "stopping ends it")
      await annSees.close()
      await bobSees.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }

    @Test("Read receipts: how far the other member read shows live, with who read each message; mentions count unread")
    func readsAndMentions() async throws {
      let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
      let (ann, bob, channel) = try await sync.pair(sandbox)
      try await sync.send(["one", "two", "three"], from: ann, to: channel)
      let annSees = try await ann.chat.open(channel)
      let bobSees = try await bob.chat.open(channel)
      #expect(await annSees.caughtUp() == .live)
      #expect(await bobSees.caughtUp() == .live)
      let two = try await stored("two", of: bob, in: channel)
      try await bob.chat.markRead(channel, upTo: try #require(two.id))
      #expect(
        await shows(annSees) { snapshot in
          snapshot.messages.map { snapshot.readBy($0) } == [[bob.id], [bob.id], []]
        }, "\(annSees.snapshot.readPositions)")
      // Bob's own message moves his position to it: he has read everything before.
      try await sync.send(["@ann look"], from: bob, to: channel)
      #expect(
        await shows(annSees) { snapshot in
          snapshot.readPositions[bob.id]?.seq == 4 && snapshot.readBy(snapshot.messages[2]) == [bob.id]
            && snapshot.messages.last?.mentions == [ann.id]
        }, "\(annSees.snapshot.readPositions)")
      await annSees.close()
      // Each message that mentions Ann counts as an unread mention in her list, until she reads past it.
      try await sync.send(["@ann again", "not for ann"], from: bob, to: channel)
      let counted = await chatPoll {
        try await ann.chat.store.conversation(channel)?.unreadMentionCount == 2
      }
      let annsChannel = try await ann.chat.store.conversation(channel)
      #expect(counted, "\(String(describing: annsChannel))")
      let last = try await stored("not for ann", of: bob, in: channel)
      try await ann.chat.markRead(channel, upTo: try #require(last.id))
      #expect(try await ann.chat.store.conversation(channel)?.unreadMentionCount == 0)
      await bobSees.close()
      await ann.chat.shutDown()
      await bob.chat.shutDown()
      await sandbox.stop()
    }
  }
}
