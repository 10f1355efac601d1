import Foundation
import Persistence

// MARK: - Search, of the local store (`ChatStore.search`)

extension ChatService {
  /// Searches the signed-in user's stored messages, offline: every word of `query` must be in a message's text, as a
  /// word or the start of one, in any language's letters, whatever the case or diacritics. The best matches come
  /// first, the newest first among equals, each with an excerpt around what matched; at most `limit` (1 to 100).
  /// Only what the store holds is searched: the conversations opened or followed on this device, their pages as far
  /// as they were read. A deleted message is never found; an edited one is found by its text now.
  ///
  /// ```swift
  /// import Chat
  ///
  /// func find(_ words: String, on chat: ChatService) async throws {
  ///   for hit in try await chat.search(words, limit: 10) {
  ///     print(hit.conversationName ?? hit.message.conversationID, hit.excerpt)
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - query: The words to find.
  ///   - conversationID: Only this conversation's messages; every conversation's when `nil`.
  ///   - limit: The most hits, 1 to 100.
  /// - Throws: `ChatError.Kind.invalidInput` for a query with no word or over 200 characters, or a limit out of
  ///   range; `ChatError.Kind.notSignedIn`; `ChatError.Kind.storage`.
  public func search(_ query: String, in conversationID: String? = nil, limit: Int = 20) async throws -> [SearchHit] {
    guard (1...100).contains(limit) else {
      throw ChatError(.invalidInput, "A search returns 1 to 100 hits, not \(limit).")
    }
    guard query.count <= ChatStore.maxSearchLength, !ChatStore.searchWords(query).isEmpty else {
      throw ChatError(
        .invalidInput,
        "A search needs a word (letters or digits) and has at most \(ChatStore.maxSearchLength) characters.")
    }
    let store = try accounts.current().store
    return try await stored("search the messages") { try await store.search(query, in: conversationID, limit: limit) }
  }
}
