import Domain
import Foundation
import GRDB
import Logging
import Networking
import Persistence

extension ChatDirectory {
  func createWorkspace(named name: String) async throws -> Workspace {
    let store = try accounts.current().store
    let name = try Self.validName(name, of: "workspace")
    let workspace = try await call(.createWorkspace(name: name), as: ChatWire.Workspace.self, doing: "create \(name)")
    try await stored("keep the workspace") { try await store.upsert([workspace.record]) }
    return workspace.record
  }

  func renameWorkspace(_ workspaceID: String, to name: String) async throws -> Workspace {
    let store = try accounts.current().store
    let name = try Self.validName(name, of: "workspace")
    let workspace = try await call(
      .renameWorkspace(id: workspaceID, name: name), as: ChatWire.Workspace.self, doing: "rename \(workspaceID)")
    try await stored("keep the workspace") { try await store.upsert([workspace.record]) }
    return workspace.record
  }

  func deleteWorkspace(_ workspaceID: String) async throws {
    let store = try accounts.current().store
    _ = try await call(.deleteWorkspace(id: workspaceID), as: Empty.self, doing: "delete \(workspaceID)")
    try await stored("forget the workspace") {
      let remaining = try await store.workspaces().filter { $0.id != workspaceID }
      try await store.replaceWorkspaces(remaining)
      for conversation in try await store.conversations(in: workspaceID) {
        try await store.removeConversation(conversation.id)
      }
    }
  }

  func members(ofWorkspace workspaceID: String) async throws -> [Member] {
    try await members(.workspaceMembers(id: workspaceID), of: .workspace(workspaceID), id: workspaceID)
  }

  func invite(email: String, to workspaceID: String) async throws {
    let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
    guard email.contains("@"), email.count <= 254 else {
      throw ChatError(.invalidInput, "An invitation needs an email address (with @, at most 254 characters).")
    }
    _ = try await call(
      .invite(workspaceID: workspaceID, email: email), as: ChatWire.Workspace.self,
      doing: "invite a member to \(workspaceID)")
  }

  func transferWorkspace(_ workspaceID: String, to userID: String) async throws -> Workspace {
    let store = try accounts.current().store
    let workspace = try await call(
      .transferWorkspace(id: workspaceID, to: userID), as: ChatWire.Workspace.self,
      doing: "transfer \(workspaceID)")
    try await stored("keep the workspace") { try await store.upsert([workspace.record]) }
    return workspace.record
  }

  func createChannel(named name: String, in workspaceID: String) async throws -> Conversation {
    let name = try Self.validName(name, of: "channel")
    return try await keepChannel(
      .createChannel(workspaceID: workspaceID, name: name), doing: "create the channel \(name)")
  }

  func renameChannel(_ channelID: String, to name: String) async throws -> Conversation {
    let name = try Self.validName(name, of: "channel")
    return try await keepChannel(.renameChannel(id: channelID, name: name), doing: "rename \(channelID)")
  }

  func deleteChannel(_ channelID: String) async throws {
    let store = try accounts.current().store
    _ = try await call(.deleteChannel(id: channelID), as: Empty.self, doing: "delete \(channelID)")
    try await stored("forget the channel") { try await store.removeConversation(channelID) }
  }

  func join(_ channelID: String) async throws -> Conversation {
    try await keepChannel(.join(channelID: channelID), doing: "join \(channelID)")
  }

  func leave(_ channelID: String) async throws -> Conversation {
    let channel = try await keepChannel(.leave(channelID: channelID), doing: "leave \(channelID)")
    try await stored("forget the channel's messages") {
      try await accounts.current().store.resetMessages(in: channelID)
    }
    return channel
  }

  func transferChannel(_ channelID: String, to userID: String) async throws -> Conversation {
    try await keepChannel(.transferChannel(id: channelID, to: userID), doing: "transfer \(channelID)")
  }

  func members(ofChannel channelID: String) async throws -> [Member] {
    try await members(.channelMembers(id: channelID), of: .conversation(channelID), id: channelID)
  }

  /// The members `route` lists, of the workspace or channel `id`, kept in the store as `scope`'s.
  private func members(_ route: ChatRouter.Route, of scope: ChatStore.MemberScope, id: String) async throws -> [Member]
  {
    let store = try accounts.current().store
    let answer = try await call(route, as: ChatWire.Members.self, doing: "list the members of \(id)")
    let members = answer.members.map(\.member)
    try await stored("keep the members") { try await store.replaceMembers(members, of: scope) }
    return members
  }

  func openDirectMessage(with userID: String, in workspaceID: String) async throws -> DirectMessageRoom {
    let store = try accounts.current().store
    let me = try accounts.me()
    guard userID != me else { throw ChatError(.invalidInput, "A DM room is with another member, not oneself.") }
    let answer = try await call(
      .openDirectMessage(workspaceID: workspaceID, userID: userID), as: ChatWire.DirectMessageRoom.self,
      doing: "open a DM room with \(userID)")
    let room = DirectMessageRoom(
      conversation: answer.record(for: me), members: answer.members.map(\.member),
      lastMessage: answer.lastMessage?.record)
    try await stored("keep the DM room") {
      try await store.upsert([room.conversation])
      try await store.replaceMembers(room.members, of: .conversation(room.conversation.id))
    }
    return room
  }

  @discardableResult
  func markRead(_ conversationID: String, upTo messageID: String) async throws -> Int {
    let store = try accounts.current().store
    let answer = try await call(
      .read(conversationID: conversationID, messageID: messageID), as: ChatWire.Unread.self,
      doing: "mark \(conversationID) read")
    // What the server counted, not 0: a read up to a message other than the newest leaves some unread.
    try await stored("keep the read pointer") {
      try await store.applyRead(
        conversationID, upTo: messageID, unreadCount: answer.unreadCount, unreadMentionCount: answer.unreadMentionCount)
    }
    return answer.unreadCount
  }

  private func keepChannel(_ route: ChatRouter.Route, doing what: String) async throws -> Conversation {
    let store = try accounts.current().store
    let channel = try await call(route, as: ChatWire.Channel.self, doing: what).record
    try await stored("keep the channel") { try await store.upsert([channel]) }
    return channel
  }
}
