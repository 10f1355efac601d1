import Domain
import Foundation
import GRDB
import Logging
import Networking
import Persistence

/// The chat's directory: the signed-in user's workspaces, channels, DM rooms and members — the live lists (the store
/// first, then the server, then every change the connection brings) and the calls that create, rename, delete, join,
/// leave and hand them over, each keeping what the server answered in the account's store.
///
/// Each method is the body of `ChatService`'s public method of the same name, which documents it.
final class ChatDirectory: Sendable {
  let accounts: ChatAccounts
  private let connection: ChatConnection
  private let baseURL: URL

  init(accounts: ChatAccounts, connection: ChatConnection, baseURL: URL) {
    self.accounts = accounts
    self.connection = connection
    self.baseURL = baseURL
  }

  // MARK: - Lists: the store first, then the server, then every change

  func workspaces() -> AsyncThrowingStream<[Workspace], any Error> {
    live(.workspaces, read: { try await $0.workspaces() }, fetch: { [self] in try await refreshWorkspaces() })
  }

  @discardableResult
  func refreshWorkspaces() async throws -> [Workspace] {
    try await keepList("the workspaces") { [self] in
      try await call(.workspaces, as: ChatWire.Workspaces.self, doing: "list the workspaces").workspaces.map(\.record)
    } write: { workspaces, db in
      try ChatStore.replaceWorkspaces(workspaces, db)
    }
  }

  func channels(in workspaceID: String) -> AsyncThrowingStream<[Conversation], any Error> {
    live(
      .channels(workspaceID: workspaceID), read: { try await $0.conversations(in: workspaceID, kind: .channel) },
      fetch: { [self] in try await refreshChannels(in: workspaceID) })
  }

  @discardableResult
  func refreshChannels(in workspaceID: String) async throws -> [Conversation] {
    try await keepList("the channels") { [self] in
      try await call(
        .channels(workspaceID: workspaceID, joinedOnly: false), as: ChatWire.Channels.self,
        doing: "list the channels"
      ).channels.map(\.record)
    } write: { channels, db in
      try ChatStore.replaceConversations(channels, in: workspaceID, kind: .channel, db)
    }
  }

  func directMessages(in workspaceID: String) -> AsyncThrowingStream<[DirectMessageRoom], any Error> {
    live(
      .directMessages(workspaceID: workspaceID), read: { [self] in try await rooms(in: workspaceID, of: $0) },
      fetch: { [self] in try await refreshDirectMessages(in: workspaceID) })
  }

  @discardableResult
  func refreshDirectMessages(in workspaceID: String) async throws -> [DirectMessageRoom] {
    let me = try accounts.me()
    return try await keepList("the DM rooms") { [self] in
      try await call(
        .directMessages(workspaceID: workspaceID), as: ChatWire.DirectMessages.self, doing: "list the DM rooms"
      ).dms.map { room in
        DirectMessageRoom(
          conversation: room.record(for: me), members: room.members.map(\.member),
          lastMessage: room.lastMessage?.record)
      }
    } write: { rooms, db in
      // The rooms, their members and their newest messages in one transaction: a list never shows half of them.
      try ChatStore.replaceConversations(rooms.map(\.conversation), in: workspaceID, kind: .directMessage, db)
      for room in rooms {
        try ChatStore.replaceMembers(room.members, of: .conversation(room.conversation.id), db)
        if let last = room.lastMessage { _ = try ChatStore.upsert(last, db) }
      }
    }
  }

  /// Fetches a list and writes it to the account's store in one transaction, unless a push came while it was asked
  /// for (the answer may then be older than what the push wrote, a channel it created or a count it moved): then it
  /// asks again, three times at most, the last answer written whatever came.
  private func keepList<Answer: Sendable>(
    _ what: String, fetch: () async throws -> Answer,
    write: @escaping @Sendable (Answer, Database) throws -> Void
  ) async throws -> Answer {
    let store = try accounts.current().store
    for attempt in 1...3 {
      let heard = connection.pushCount
      let answer = try await fetch()
      let kept = try await stored("keep \(what)") {
        try await store.writeLists(
          "store \(what)",
          ifCurrent: { [connection] in attempt == 3 || connection.pushCount == heard }
        ) { db in try write(answer, db) }
      }
      if kept { return answer }
    }
    preconditionFailure("the third answer is always kept")
  }

  /// The DM rooms of `workspaceID` that `store` holds, each with its members and newest message.
  private func rooms(in workspaceID: String, of store: ChatStore) async throws -> [DirectMessageRoom] {
    try await stored("read the DM rooms") {
      var rooms: [DirectMessageRoom] = []
      for conversation in try await store.conversations(in: workspaceID, kind: .directMessage) {
        rooms.append(
          DirectMessageRoom(
            conversation: conversation, members: try await store.members(of: .conversation(conversation.id)),
            lastMessage: try await store.messages(in: conversation.id, limit: 1).last))
      }
      return rooms
    }
  }

  /// `name` trimmed, or `ChatError.Kind.invalidInput` when it is empty or longer than 100 characters.
  static func validName(_ name: String, of what: String) throws -> String {
    let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
    guard (1...100).contains(trimmed.count) else {
      throw ChatError(
        .invalidInput, "A \(what) name has 1 to 100 characters once trimmed, not \(trimmed.count); nothing was sent.")
    }
    return trimmed
  }

  /// An answer whose body does not matter (`{}`).
  struct Empty: Decodable, Sendable {}

  /// Sends `route` through the session's client and decodes its answer, as a ``ChatError`` when it fails.
  func call<Response: Decodable & Sendable>(
    _ route: ChatRouter.Route, as type: Response.Type = Response.self, doing what: String
  ) async throws -> Response {
    _ = try accounts.me()
    do {
      return try await accounts.sessions.client.send(.json(ChatRouter(route, baseURL: baseURL)))
    } catch let error as NetworkError {
      throw ChatError.request(RequestFailure(error), doing: what)
    }
  }

  /// A stream of what `read` reads from the account's store: at once, again once `fetch` has stored the server's,
  /// then each time a write changes it (a push, a call, a catch-up). It wants the socket, whose pushes are the
  /// changes made elsewhere, and ends when the consumer stops, when its account ends or the service shuts down, or
  /// with `fetch`'s error.
  private func live<Value: Sendable & Equatable>(
    _ list: ChatConnection.ListKind, read: @escaping @Sendable (ChatStore) async throws -> Value,
    fetch: @escaping @Sendable () async throws -> Value
  ) -> AsyncThrowingStream<Value, any Error> {
    AsyncThrowingStream { continuation in
      let id = UUID()
      let task = Task { [self] in
        defer { connection.unfollow(id) }
        do {
          let account = try accounts.current()
          let store = account.store
          // Watched from before the first read: nothing written after it is missed.
          let changes = try await store.changes()
          let followed = connection.follow(
            ChatConnection.FollowedList(
              userID: account.userID, list: list, refresh: { _ = try await fetch() },
              finish: { continuation.finish(throwing: $0) }), as: id)
          guard followed else { return continuation.finish() }
          // An account that ended while this one started (the pass that ends its lists may have run before it was
          // followed) shows nothing more.
          guard accounts.currentUserID == account.userID else {
            throw ChatError(.notSignedIn, "The session ended: the chat's lists were its account's.")
          }
          await connection.want()
          var shown = try await stored("read a list") { try await read(store) }
          continuation.yield(shown)
          _ = try await fetch()
          shown = try await stored("read a list") { try await read(store) }
          continuation.yield(shown)
          for await _ in changes {
            let now = try await stored("read a list") { try await read(store) }
            guard now != shown else { continue }
            shown = now
            continuation.yield(now)
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}
