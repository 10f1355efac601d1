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
    await conversation.close()
    await a.shutDown()
    await b.shutDown()
    return "B's socket dropped; A sent \(count), one with an image; B reconnected and has all \(count) once, in order"
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
