import Foundation

extension ChatState {
  /// A workspace to try, for a backend that has none: "Keel", owned by the first of `userIDs`, every one of them a
  /// member; `#general` with all of them and a welcome message, `#random` with the owner alone (the others see it
  /// and may join), and a DM room between the first two with a message from the owner.
  mutating func seed(userIDs: [String], now: Int64) {
    guard workspaces.isEmpty, let owner = userIDs.first else { return }
    let workspace = Workspace(id: newID("w"), name: "Keel", ownerID: owner, memberIDs: userIDs)
    workspaces[workspace.id] = workspace
    let general = Conversation(
      id: newID("c"), workspaceID: workspace.id, kind: .channel, name: "general", ownerID: owner, memberIDs: userIDs)
    let random = Conversation(
      id: newID("c"), workspaceID: workspace.id, kind: .channel, name: "random", ownerID: owner, memberIDs: [owner])
    conversations[general.id] = general
    conversations[random.id] = random
    add("Welcome to Keel's chat. Say hello with: keel chat send general \"Hello\"", from: owner, to: general.id, now)
    if userIDs.count > 1 {
      let direct = Conversation(
        id: newID("d"), workspaceID: workspace.id, kind: .directMessage, name: "", ownerID: nil,
        memberIDs: Array(userIDs.prefix(2)))
      conversations[direct.id] = direct
      add("Hi! This is a direct message; only the two of us see it.", from: owner, to: direct.id, now + 1)
    }
  }

  private mutating func add(_ text: String, from sender: String, to conversationID: String, _ now: Int64) {
    let message = Message(
      id: newID("m"), conversationID: conversationID, clientMessageID: nil, senderID: sender, text: text,
      imageIDs: [], createdAt: now, seq: (messages[conversationID]?.count ?? 0) + 1)
    messages[conversationID, default: []].append(message)
    messageCount += 1
    readPointers[conversationID, default: [:]][sender] = message.id
  }
}
