import Domain
import Foundation
import KeelConcurrency
import KeelErrors
import Logging
import Networking
import Persistence

/// A change of a sent message the outbox holds until the server has it: an edit, a deletion, a reaction added or
/// taken away (``ChatService/edit(_:text:)``, ``ChatService/delete(_:)``, ``ChatService/react(_:to:)``,
/// ``ChatService/removeReaction(_:from:)``). ``ChatService/outcome(of:)-(MessageChange)`` tells what became of it.
public struct MessageChange: Sendable, Hashable {
  /// The change's id, which makes sending it again harmless.
  public let id: String
  /// The conversation of the message it changes.
  public let conversationID: String
  /// The server id of the message it changes.
  public let messageID: String
}

extension ChatOutbox {
  /// Checks a change of `message`, keeps it in the outbox behind what waits there already, and shows it at once in
  /// the store (put back if the server refuses it).
  func change(
    _ kind: OutgoingChange.Kind, of message: Message, text: String? = nil, emoji: String? = nil
  ) async throws -> MessageChange {
    _ = try accounts.me()
    let account = try accounts.current()
    let me = account.userID
    guard let messageID = message.id, message.state == .sent else {
      throw ChatError(.invalidInput, "Only a message the server has can be changed; nothing was sent.")
    }
    if kind == .edit || kind == .delete, message.senderID != me {
      throw ChatError(
        .notPermitted,
        "Only its sender can \(kind == .edit ? "edit" : "delete") message \(messageID); nothing was sent.")
    }
    if message.isDeleted, kind != .delete {
      throw ChatError(.notFound, "Message \(messageID) was deleted; nothing was sent.")
    }
    if let text {
      try Self.validate(text, images: [])
    }
    if let emoji { try Self.validate(emoji: emoji) }
    // The stored copy is the one shown, with every change made to it so far.
    let current = (try? await account.store.message(serverID: messageID)) ?? message
    let changeID = UUID().uuidString.lowercased()
    let outgoing = OutgoingMessage(
      conversationID: message.conversationID, clientMessageID: changeID, senderID: me, text: "", images: [],
      change: OutgoingChange(kind: kind, messageID: messageID, text: text, emoji: emoji, original: current))
    do {
      try await account.outbox.enqueue(outgoing)
    } catch {
      throw ChatError.storage(error, doing: "keep the change in the outbox")
    }
    await show(Self.applying(kind, to: current, by: me, text: text, emoji: emoji, at: now()), in: account, added: false)
    wakeup.signal()
    return MessageChange(id: changeID, conversationID: message.conversationID, messageID: messageID)
  }

  /// `message` as the change shows it until the server's copy comes.
  static func applying(
    _ kind: OutgoingChange.Kind, to message: Message, by userID: String, text: String?, emoji: String?, at now: Date
  ) -> Message {
    var changed = message
    switch kind {
    case .edit:
      changed.text = text ?? message.text
      changed.editedAt = now
    case .delete:
      changed.isDeleted = true
      changed.text = ""
      changed.images = []
      changed.reactions = []
    case .addReaction:
      guard let emoji else { break }
      if let index = changed.reactions.firstIndex(where: { $0.emoji == emoji }) {
        if !changed.reactions[index].userIDs.contains(userID) { changed.reactions[index].userIDs.append(userID) }
      } else {
        changed.reactions.append(Message.Reaction(emoji: emoji, userIDs: [userID]))
      }
    case .removeReaction:
      guard let emoji, let index = changed.reactions.firstIndex(where: { $0.emoji == emoji }) else { break }
      changed.reactions[index].userIDs.removeAll { $0 == userID }
      if changed.reactions[index].userIDs.isEmpty { changed.reactions.remove(at: index) }
    }
    return changed
  }

  /// The most bytes of UTF-8 of one emoji (``ChatService/validate(emoji:)``).
  static let maxEmojiBytes = 64

  /// Checks a reaction's emoji as the backend does.
  static func validate(emoji: String) throws {
    guard emoji.count == 1, emoji.utf8.count <= maxEmojiBytes, let first = emoji.unicodeScalars.first, !first.isASCII,
      first.properties.isEmoji
    else {
      throw ChatError(.invalidInput, "A reaction is one emoji, not \"\(emoji)\"; nothing was sent.")
    }
  }

  /// Sends one change, once, and settles it; says what to do next.
  func send(
    _ change: OutgoingChange, of item: QueuedItem<OutgoingMessage>, from account: ChatAccount, failures: inout Int
  ) async -> Turn {
    let outgoing = item.element
    guard let user = accounts.sessions.currentUser, user.id == account.userID, user.id == outgoing.senderID else {
      return retry(outgoing, because: "its sender, \(outgoing.senderID), is not signed in", failures: &failures)
    }
    let (conversationID, messageID, changeID) = (outgoing.conversationID, change.messageID, outgoing.clientMessageID)
    let route: ChatRouter.Route =
      switch change.kind {
      case .edit:
        .edit(conversationID: conversationID, messageID: messageID, text: change.text ?? "", changeID: changeID)
      case .delete: .delete(conversationID: conversationID, messageID: messageID)
      case .addReaction:
        .addReaction(
          conversationID: conversationID, messageID: messageID, emoji: change.emoji ?? "", changeID: changeID)
      case .removeReaction:
        .removeReaction(conversationID: conversationID, messageID: messageID, emoji: change.emoji ?? "")
      }
    do {
      let changed: ChatWire.Message = try await accounts.sessions.client.send(
        .json(ChatRouter(route, baseURL: baseURL)))
      guard !Task.isCancelled else { return .stop }
      failures = 0
      retryReason.withLock { $0 = nil }
      do {
        try await account.store.applyChanges([changed.record])
      } catch {
        logger.warning("Cannot store change \(changeID); the next catch-up brings it: \(error)")
      }
      await settle(item, ChatStore.ChangeOutcome(), in: account)
      return .next
    } catch let error as NetworkError {
      guard !Task.isCancelled else { return .stop }
      if Self.passes(error) { return retry(outgoing, because: error.description, failures: &failures) }
      failures = 0
      logger.warning("The server refused change \(changeID) of message \(messageID): \(error)")
      // What the change showed goes; a newer copy from the server, if one came meanwhile, stays.
      await show(change.original, in: account, added: false)
      let failure = RequestFailure(error)
      await settle(
        item,
        ChatStore.ChangeOutcome(
          refusal: failure.serverMessage ?? failure.description, serverCode: failure.serverCode,
          statusCode: failure.statusCode), in: account)
      return .next
    } catch {
      guard !Task.isCancelled else { return .stop }
      return retry(outgoing, because: "\(error)", failures: &failures)
    }
  }

  /// Records what became of the change `item`, then takes it off the outbox.
  private func settle(_ item: QueuedItem<OutgoingMessage>, _ outcome: ChatStore.ChangeOutcome, in account: ChatAccount)
    async
  {
    do {
      try await account.store.recordOutcome(outcome, of: item.element.clientMessageID, at: now())
      _ = try await account.outbox.acknowledge([item.id])
    } catch {
      logger.error("Cannot settle change \(item.element.clientMessageID); it goes again: \(error)")
      return
    }
    settledChanges.publish(item.element.clientMessageID)
  }

  /// Waits for what became of `change` (``ChatService/outcome(of:)-(MessageChange)``): returns once the server has
  /// it, throws its refusal; `false` when the wait ended first (a shutdown, the task cancelled).
  func outcome(of change: MessageChange) async throws -> Bool {
    let updates = settledChanges.updates()  // before the store is read, so that nothing settles unseen in between
    let store = try accounts.current().store
    let read: @Sendable () async -> ChatStore.ChangeOutcome? = {
      try? await store.outcome(ofChange: change.id)
    }
    var outcome = await read()
    if outcome == nil, !isShutDown.withLock({ $0 }) {
      let announced: @Sendable () async -> ChatStore.ChangeOutcome? = {
        for await case let id? in updates where id == change.id { return await read() }
        return nil
      }
      outcome = await firstSettled(announced: announced, stored: read)
    }
    guard let outcome else { return false }
    guard let refusal = outcome.refusal else { return true }
    let kind: ChatError.Kind =
      switch outcome.statusCode {
      case 403: .notPermitted
      case 404: .notFound
      default: .refused
      }
    let code = outcome.serverCode.map { " (\($0))" } ?? ""
    throw ChatError(kind, "The server refused the change of message \(change.messageID)\(code): \(refusal.clause).")
  }
}
