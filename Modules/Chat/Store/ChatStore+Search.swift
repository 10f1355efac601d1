import Foundation
import GRDB
import Persistence

/// A message a search found, with the part of its text around what matched.
public struct SearchHit: Sendable, Hashable {
  /// The message, as the store holds it.
  public var message: Message
  /// The name its conversation's list shows (a channel's name, a DM partner's nickname), when the store has it.
  public var conversationName: String?
  /// Up to a dozen words of its text around the best match, `…` where it was cut.
  public var excerpt: String
  /// The words of ``excerpt`` that matched, for a screen to emphasise.
  public var highlights: [Range<String.Index>]

  /// A hit.
  public init(message: Message, conversationName: String?, excerpt: String, highlights: [Range<String.Index>]) {
    self.message = message
    self.conversationName = conversationName
    self.excerpt = excerpt
    self.highlights = highlights
  }
}

extension ChatStore {
  /// The most characters of a search query.
  public static let maxSearchLength = 200

  /// The stored messages whose text has every word of `query` (each as a word or the start of one, whatever the case
  /// or diacritics), in `conversationID` or in every conversation: the best matches first, the newest first among
  /// equals; at most `limit`. A deleted message has no text, so it is never found; an edited one is found by its
  /// text now.
  ///
  /// - Throws: `PersistenceError.Kind.invalidInput` for a query with no word, or over ``maxSearchLength``
  ///   characters; a storage failure.
  public func search(_ query: String, in conversationID: String? = nil, limit: Int) async throws -> [SearchHit] {
    guard query.count <= Self.maxSearchLength else {
      throw PersistenceError(
        .invalidInput, "A search has at most \(Self.maxSearchLength) characters, not \(query.count).", path: url.path)
    }
    guard let match = Self.matchExpression(query) else {
      throw PersistenceError(.invalidInput, "A search needs at least one word.", path: url.path)
    }
    return try await read("search messages") { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT message.*, conversation.name AS conversationName,
            snippet(message_search, 0, char(57344), char(57345), '…', 12) AS excerpt
          FROM message_search JOIN message ON message.rowid = message_search.rowid
          LEFT JOIN conversation ON conversation.id = message.conversationID
          WHERE message_search MATCH ? AND (? IS NULL OR message.conversationID = ?)
          ORDER BY bm25(message_search), message.createdAt DESC, message.sortKey DESC LIMIT ?
          """, arguments: [match, conversationID, conversationID, max(0, limit)]
      ).map { row in
        let (excerpt, highlights) = Self.highlighted(row["excerpt"] ?? "")
        return SearchHit(
          message: try Self.message(row), conversationName: row["conversationName"], excerpt: excerpt,
          highlights: highlights)
      }
    }
  }

  /// `query` as an FTS5 expression: each of its words quoted (so that no word is read as an operator) and taken as
  /// a prefix, all of them required; `nil` when it has no word (letters or digits).
  static func matchExpression(_ query: String) -> String? {
    let words = query.split(whereSeparator: \.isWhitespace).filter { word in
      word.contains { $0.isLetter || $0.isNumber }
    }
    guard !words.isEmpty else { return nil }
    return words.map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"*" }.joined(separator: " ")
  }

  /// The snippet's text without its markers (U+E000 before a match, U+E001 after), and where the matches are in it.
  static func highlighted(_ marked: String) -> (String, [Range<String.Index>]) {
    var text = ""
    var bounds: [(Int, Int)] = []
    var start: Int?
    for character in marked {
      switch character {
      case "\u{E000}": start = text.count
      case "\u{E001}":
        if let begun = start { bounds.append((begun, text.count)) }
        start = nil
      default: text.append(character)
      }
    }
    let ranges = bounds.map { lower, upper in
      text.index(text.startIndex, offsetBy: lower)..<text.index(text.startIndex, offsetBy: upper)
    }
    return (text, ranges)
  }
}
