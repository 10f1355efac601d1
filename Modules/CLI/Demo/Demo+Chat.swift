import Chat
import Domain
import Foundation
import KeelConcurrency
import KeelFiles
import Persistence
import Realtime
import Sandbox

extension Demo {
  /// Two new users in one workspace and channel: the Sandbox drops B's socket, A sends meanwhile (one message with an
  /// image), and B, reconnecting by itself and catching up, ends with every message once, in A's order.
  func chatThroughDrop() async throws -> String {
    let count = size == .quick ? 10 : 20
    let (a, b) = (dependencies, peer)
    let password = "demo-password-\(run)"
    let emailA = "a-\(run)@demo.keel.dev"
    let emailB = "b-\(run)@demo.keel.dev"
    _ = try await a.sessions.signUp(email: emailA, password: password, nickname: "A \(run)")
    _ = try await b.sessions.signUp(email: emailB, password: password, nickname: "B \(run)")
    let (chatA, chatB) = (try a.chat, try b.chat)
    let workspace = try await chatA.createWorkspace(named: "Demo \(run)")
    try await chatA.invite(email: emailB, to: workspace.id)
    let channel = try await chatA.createChannel(named: "demo-\(run)", in: workspace.id)
    _ = try await chatB.join(channel.id)
    let conversation = try await chatB.open(channel.id)
    let status = await conversation.caughtUp()
    try expect(status == .live, "B's conversation is \(status), not live")

    try await control.socketIOFault(drop: true)
    try expect(await within(.seconds(5)) { !chatB.connectionState.isConnected }, "B's socket was not dropped")
    let picture = try await image()
    var pending: [Message] = []
    for number in 1...count {
      let images = number == count / 2 ? [picture] : []
      pending.append(try await chatA.send("Message \(number) of \(count)", images: images, to: channel.id))
    }
    var sent: [String] = []
    for message in pending {
      let settled = await chatA.outcome(of: message)
      guard settled.state == .sent, let id = settled.id else {
        throw Wrong("A's message \"\(message.text)\" was \(settled.state): \(settled.failureReason ?? "no reason")")
      }
      sent.append(id)
    }

    let expected = Set(sent)
    let arrived = await firstElement(of: conversation.snapshots(), within: .seconds(30)) { snapshot in
      snapshot.messages.count { $0.id.map(expected.contains) ?? false } >= expected.count
    }
    let messages = (arrived ?? conversation.snapshot).messages.filter { $0.id.map(expected.contains) ?? false }
    try expect(arrived != nil, "B has \(messages.count) of A's \(count) messages after 30 s")
    try expect(messages.compactMap(\.id) == sent, "B has A's messages out of order or twice")
    let pictured = messages.filter { !$0.images.isEmpty }
    try expect(pictured.count == 1 && pictured[0].images.count == 1, "B sees \(pictured.count) messages with images")
    try expect(await within(.seconds(10)) { chatB.connectionState.isConnected }, "B's socket did not reconnect")
    try await everydayChanges(a: chatA, b: chatB, bSees: conversation, messages: Array(messages.prefix(3)))
    await conversation.close()
    await a.shutDown()
    await b.shutDown()
    return "B's socket dropped; A sent \(count), one with an image; B reconnected and has all \(count) once, in order; "
      + "A's edit reached B live, and B's reaction and reply reached A"
  }

  /// A edits its first message, B reacts to the second and replies to the third: each arrives on the other side live.
  private func everydayChanges(
    a chatA: ChatService, b chatB: ChatService, bSees: ChatConversation, messages: [Message]
  ) async throws {
    guard messages.count == 3, let editedID = messages[0].id, let reactedID = messages[1].id,
      let repliedID = messages[2].id
    else { throw Wrong("B has fewer than three of A's messages to change") }
    let aSees = try await chatA.open(messages[0].conversationID)
    do {
      try await change(a: chatA, b: chatB, aSees: aSees, bSees: bSees, ids: (editedID, reactedID, repliedID), messages)
    } catch {
      await aSees.close()
      throw error
    }
    await aSees.close()
  }

  private func change(
    a chatA: ChatService, b chatB: ChatService, aSees: ChatConversation, bSees: ChatConversation,
    ids: (edited: String, reacted: String, replied: String), _ messages: [Message]
  ) async throws {
    let (editedID, reactedID, repliedID) = ids
    let status = await aSees.caughtUp()
    try expect(status == .live, "A's conversation is \(status), not live")
    let edited = messages[0].text + " (edited)"
    guard let first = try await chatA.message(id: editedID) else { throw Wrong("A does not have its own message") }
    try expect(try await chatA.outcome(of: try await chatA.edit(first, text: edited)), "A's edit was not applied")
    try expect(try await chatB.outcome(of: try await chatB.react("👍", to: messages[1])), "B's reaction was not applied")
    let reply = await chatB.outcome(of: try await chatB.reply("Got it", to: messages[2]))
    try expect(reply.state == .sent, "B's reply was \(reply.state): \(reply.failureReason ?? "no reason")")

    let bHasEdit = await firstElement(of: bSees.snapshots(), within: .seconds(30)) { snapshot in
      snapshot.messages.contains { $0.id == editedID && $0.text == edited && $0.editedAt != nil }
    }
    try expect(bHasEdit != nil, "A's edit did not reach B")
    let aHasBoth = await firstElement(of: aSees.snapshots(), within: .seconds(30)) { snapshot in
      snapshot.messages.contains { $0.id == reactedID && $0.reactions.map(\.emoji) == ["👍"] }
        && snapshot.messages.contains { $0.id == repliedID && $0.replyCount == 1 && $0.lastReplyID == reply.id }
    }
    try expect(aHasBoth != nil, "B's reaction and reply did not both reach A")
  }

  /// A PNG from the Sandbox, in a file to send.
  private func image() async throws -> URL {
    let data = try await dependencies.images.data(for: control.baseURL.appendingPathComponent("images/chat.png"))
    let file = directory.appendingPathComponent("chat.png")
    try OwnerOnlyFiles.write(data, to: file)
    return file
  }

  /// Whether `condition` holds within `timeout`, looked at every 10 ms.
  private func within(_ timeout: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
      guard ContinuousClock.now < deadline else { return false }
      try? await Task.sleep(for: .milliseconds(10))
    }
    return true
  }
}
