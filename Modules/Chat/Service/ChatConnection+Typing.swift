import Foundation
import KeelConcurrency
import Logging
import Realtime

/// What typing indicators remember: whose indicator each `typing` push renewed last (a number per user and
/// conversation, so that an expiry a later push overtook does nothing), and when this user last said they were typing
/// in each conversation.
struct TypingBook: Sendable {
  var renewals: [String: Int] = [:]
  var nextRenewal = 0
  var saidTyping: [String: Date] = [:]

  static func key(_ conversationID: String, _ userID: String) -> String { conversationID + "\n" + userID }

  /// Whether the user typing in `conversationID` at `now` is to be told: not when it was told less than `interval`
  /// before (a clock that went back counts as time passed); records it when so.
  mutating func sayTyping(in conversationID: String, at now: Date, interval: TimeInterval) -> Bool {
    if let last = saidTyping[conversationID], now >= last, now.timeIntervalSince(last) < interval { return false }
    saidTyping[conversationID] = now
    return true
  }
}

extension ChatConnection {
  /// The least time between two `typing` events this client sends for one conversation.
  static let typingInterval: TimeInterval = 1

  // MARK: - What this user types

  /// Tells the conversation's other members that the user is typing: at most once a second, over the socket when it
  /// is connected (never kept for later: a late "typing" says nothing true).
  func userIsTyping(in conversationID: String) async {
    let now = now()
    let due = typingBook.withLock { $0.sayTyping(in: conversationID, at: now, interval: Self.typingInterval) }
    guard due else { return }
    await emitTyping(true, in: conversationID)
  }

  /// Tells them the user stopped (a send, a cleared field), if they were told the user was typing.
  func userStoppedTyping(in conversationID: String) async {
    let said = typingBook.withLock { $0.saidTyping.removeValue(forKey: conversationID) != nil }
    guard said else { return }
    await emitTyping(false, in: conversationID)
  }

  private func emitTyping(_ typing: Bool, in conversationID: String) async {
    guard socket.state.isConnected else { return }
    do {
      try await socket.emit("typing", [["conversationId": .string(conversationID), "typing": .bool(typing)]])
    } catch {
      logger.debug("The typing indicator of \(conversationID) was not sent: \(error)")
    }
  }

  // MARK: - What others type

  /// A `typing` push: `userID` is typing in `conversationID` (until ``ChatConfiguration/typingTimeout`` passes without
  /// another), or stopped.
  func heardTyping(_ typing: Bool, by userID: String, in conversationID: String) {
    let key = TypingBook.key(conversationID, userID)
    let renewal = typingBook.withLock { book -> Int? in
      guard typing else {
        book.renewals[key] = nil
        return nil
      }
      book.nextRenewal += 1
      book.renewals[key] = book.nextRenewal
      return book.nextRenewal
    }
    typists.update { all in
      var users = all[conversationID] ?? []
      if typing, !users.contains(userID) { users.append(userID) }
      if !typing { users.removeAll { $0 == userID } }
      all[conversationID] = users.isEmpty ? nil : users
    }
    guard let renewal else { return }
    let (sleep, timeout) = (sleep, configuration.typingTimeout)
    Task { [weak self] in
      guard (try? await sleep(timeout)) != nil, let self else { return }
      let expired = self.typingBook.withLock { book in
        guard book.renewals[key] == renewal else { return false }
        book.renewals[key] = nil
        return true
      }
      if expired { self.heardTyping(false, by: userID, in: conversationID) }
    }
  }

  /// Everyone stops typing in every conversation: the socket closed, so no push would end their indicators.
  func forgetTyping() {
    typingBook.withLock { $0.renewals = [:] }
    typists.publish([:])
  }
}
