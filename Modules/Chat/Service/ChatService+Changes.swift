import Domain
import Foundation
import Networking

// MARK: - Replies, edits, deletions and reactions, through the outbox (`ChatOutbox`)

extension ChatService {
  /// Sends `text` (and up to five images and five files) as a reply to `parent`, in its conversation, as
  /// ``send(_:images:files:to:)`` sends a message: the parent's reply count and latest reply follow once the server
  /// has it.
  ///
  /// - Throws: As ``send(_:images:files:to:)``; `ChatError.Kind.invalidInput` when `parent` is not a sent message.
  public func reply(_ text: String, images: [URL] = [], files: [URL] = [], to parent: Message) async throws
    -> Message
  {
    guard let parentID = parent.id, parent.state == .sent, !parent.isDeleted else {
      throw ChatError(.invalidInput, "Only a sent message that is not deleted can be replied to; nothing was sent.")
    }
    return try await outbox.send(text, images: images, files: files, to: parent.conversationID, replyTo: parentID)
  }

  /// Changes the text of the user's own sent message to `text`, checked as a message's text is. The conversation shows
  /// the new text at once; the outbox sends the edit in its turn (after what waits there already, exactly once), and
  /// every member sees it, with its edited time, live or at their next catch-up.
  ///
  /// - Returns: The change, for ``outcome(of:)-(MessageChange)``.
  /// - Throws: `ChatError.Kind.notPermitted` for another member's message; `ChatError.Kind.notFound` for a
  ///   deleted one; `ChatError.Kind.invalidInput` for a text that is not a message's, or a message not sent yet;
  ///   `ChatError.Kind.notSignedIn`; `ChatError.Kind.storage` when the outbox cannot keep it. Nothing is sent
  ///   when it throws.
  public func edit(_ message: Message, text: String) async throws -> MessageChange {
    try await outbox.change(.edit, of: message, text: text)
  }

  /// Deletes the user's own sent message: it becomes a tombstone (``Message/isDeleted``) at once here, and on the
  /// server and every member's device once the outbox sends the deletion, its text, images and reactions gone.
  ///
  /// - Throws: `ChatError.Kind.notPermitted` for another member's message; as ``edit(_:text:)`` otherwise.
  public func delete(_ message: Message) async throws -> MessageChange {
    try await outbox.change(.delete, of: message)
  }

  /// Adds the user's reaction `emoji` to any sent message of a conversation they are in; once per user and emoji,
  /// however often added.
  ///
  /// - Throws: `ChatError.Kind.invalidInput` when `emoji` is not one emoji (``validate(emoji:)``); as
  ///   ``edit(_:text:)`` otherwise.
  public func react(_ emoji: String, to message: Message) async throws -> MessageChange {
    try await outbox.change(.addReaction, of: message, emoji: emoji)
  }

  /// Takes the user's reaction `emoji` away from a message; taking away one that is not there changes nothing.
  ///
  /// - Throws: As ``react(_:to:)``.
  public func removeReaction(_ emoji: String, from message: Message) async throws -> MessageChange {
    try await outbox.change(.removeReaction, of: message, emoji: emoji)
  }

  /// Waits until the server has `change` or refused it: returns `true` once it has it, `false` when the wait ended
  /// first (the service shut down, or the task was cancelled; the outbox keeps the change either way). A change
  /// another process on the same directory sent counts too.
  ///
  /// - Throws: The refusal, with what was shown put back: `ChatError.Kind.notPermitted` (another member's
  ///   message), `ChatError.Kind.notFound` (a message deleted or gone), `ChatError.Kind.refused` otherwise.
  public func outcome(of change: MessageChange) async throws -> Bool {
    try await outbox.outcome(of: change)
  }

  /// Checks a reaction's emoji as ``react(_:to:)`` does: one character, at most 64 bytes of UTF-8, whose first
  /// scalar is an emoji and not an ASCII digit or sign (which Unicode also counts as emoji).
  ///
  /// - Throws: `ChatError.Kind.invalidInput`.
  public static func validate(emoji: String) throws {
    try ChatOutbox.validate(emoji: emoji)
  }

  /// The stored message whose server id is `id` in the signed-in user's store, or `nil` when the store does not hold
  /// it (open its conversation to catch up first).
  ///
  /// - Throws: `ChatError.Kind.notSignedIn`; `ChatError.Kind.storage`.
  public func message(id: String) async throws -> Message? {
    let store = try accounts.current().store
    return try await stored("read a message") { try await store.message(serverID: id) }
  }

  /// A page of the replies to `parent`, oldest first: the newest `limit` (at most 100) before the reply `before`, or
  /// the newest when `nil`; `hasMore` says whether older ones remain. Read from the server, or from the store when the
  /// server cannot be reached.
  ///
  /// - Throws: `ChatError.Kind.invalidInput` for a parent not sent or a limit out of range;
  ///   `ChatError.Kind.refused` when the server refuses (not a member, no such message);
  ///   `ChatError.Kind.notSignedIn`; `ChatError.Kind.storage`.
  public func replies(to parent: Message, before: Message? = nil, limit: Int = 50) async throws
    -> (replies: [Message], hasMore: Bool)
  {
    guard let parentID = parent.id, parent.state == .sent else {
      throw ChatError(.invalidInput, "Only a sent message has replies.")
    }
    guard (1...100).contains(limit) else {
      throw ChatError(.invalidInput, "A page has 1 to 100 replies, not \(limit).")
    }
    let store = try accounts.current().store
    do {
      let page: ChatWire.Page = try await accounts.sessions.client.send(
        .json(
          ChatRouter(
            .replies(conversationID: parent.conversationID, parentID: parentID, before: before?.id, limit: limit),
            baseURL: baseURL)))
      // Not stored: a reply read out of its place would open a gap in the conversation's stored pages.
      return (page.messages.map(\.record), page.hasMore)
    } catch let error as NetworkError {
      let failure = ChatError.request(RequestFailure(error), doing: "read the replies to \(parentID)")
      guard failure.kind == .requestFailed else { throw failure }
      let stored = try await stored("read replies") {
        try await store.replies(to: parentID, in: parent.conversationID, before: before?.position, limit: limit + 1)
      }
      return (Array(stored.suffix(limit)), stored.count > limit)
    }
  }
}
