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
  /// Indexes for search every message stored or changed and not indexed yet (`searchBacklog`, which the message
  /// table's triggers fill), with one statement. Every transaction that stores messages calls it before it commits
  /// but two, on the paths a user waits on: the sender's pending copy (indexed with its sent copy) and the open
  /// conversation's push (indexed with its count); a search indexes what is left first.
  static func indexBacklog(_ db: Database) throws {
    try db.cachedStatement(
      sql: """
        INSERT INTO message_search(rowid, text, conversation)
        SELECT message.searchKey, message.text, hex(message.conversationID)
        FROM searchBacklog JOIN message ON message.rowid = searchBacklog.rowid
        """
    ).execute()
    try db.cachedStatement(sql: "DELETE FROM searchBacklog").execute()
  }

  /// The most characters of a search query.
  public static let maxSearchLength = 200

  /// The stored messages whose text has every word of `query` (each as a word or the start of one, whatever the case
  /// or diacritics), in `conversationID` or in every conversation: the best matches first (those with the query's
  /// words the most often), the newest first among equals; at most `limit`. A deleted message has no text, so it is
  /// never found; an edited one is found by its text now.
  ///
  /// - Throws: `PersistenceError.Kind.invalidInput` for a query with no word, or over ``maxSearchLength``
  ///   characters; a storage failure.
  public func search(_ query: String, in conversationID: String? = nil, limit: Int) async throws -> [SearchHit] {
    guard query.count <= Self.maxSearchLength else {
      throw PersistenceError(
        .invalidInput, "A search has at most \(Self.maxSearchLength) characters, not \(query.count).", path: url.path)
    }
    let words = Self.searchWords(query)
    guard !words.isEmpty else {
      throw PersistenceError(.invalidInput, "A search needs at least one word.", path: url.path)
    }
    let match = Self.matchExpression(words, in: conversationID)
    let phrases = words.map(SearchText.tokens)
    // What a write left unindexed (a pending copy, a push before its count) is indexed first: a search never misses it.
    let hits = try await read("search messages") { db -> [SearchHit]? in
      guard try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM searchBacklog)") != true else { return nil }
      return try Self.hits(match, limit: limit, phrases: phrases, db)
    }
    if let hits { return hits }
    try await write("index messages for search") { db in try Self.indexBacklog(db) }
    return try await read("search messages") { db in try Self.hits(match, limit: limit, phrases: phrases, db) }
  }

  /// The best `limit` hits of `match`, each with its excerpt of `phrases`.
  private static func hits(_ match: String, limit: Int, phrases: [[String]], _ db: Database) throws -> [SearchHit] {
    // The index alone finds and orders the best `limit` (its row id is the search key); only they are read.
    try Row.fetchAll(
      db.cachedStatement(
        sql: """
          SELECT \(Self.messageColumns), conversation.name AS conversationName
          FROM (
            SELECT rowid AS key, \(SearchRank.name)(message_search) AS score FROM message_search
            WHERE message_search MATCH ? ORDER BY score, rowid DESC LIMIT ?
          ) AS hit
          JOIN message ON message.searchKey = hit.key
          LEFT JOIN conversation ON conversation.id = message.conversationID
          ORDER BY hit.score, hit.key DESC
          """), arguments: [match, max(0, limit)]
    ).map { row in
      let message = try Self.message(row)
      let (excerpt, highlights) = SearchText.excerpt(of: message.text, matching: phrases)
      return SearchHit(
        message: message, conversationName: row[20], excerpt: excerpt, highlights: highlights)
    }
  }

  /// The words of `query` that have a letter or a digit.
  static func searchWords(_ query: String) -> [Substring] {
    query.split(whereSeparator: \.isWhitespace).filter { word in word.contains { $0.isLetter || $0.isNumber } }
  }

  /// `words` as an FTS5 expression: each of them quoted (so that no word is read as an operator), taken as a prefix
  /// and required in the text; and, given a conversation, its id (hexadecimal, one token) in the conversation column.
  static func matchExpression(_ words: [Substring], in conversationID: String? = nil) -> String {
    let text = words.map { "text : \"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"*" }
    let conversation = conversationID.map { id in
      ["conversation : \"\(id.utf8.map { String(format: "%02X", $0) }.joined())\""]
    }
    return (text + (conversation ?? [])).joined(separator: " AND ")
  }
}

/// A search hit's excerpt, cut from the message's text around what matched: the text is split into words as the
/// index's tokenizer splits it (runs of letters, digits and their marks) and compared as it does (case and diacritics
/// folded).
enum SearchText {
  /// How many words an excerpt has at most.
  static let excerptWords = 12

  /// The words of `text`: runs of the scalars FTS5's `unicode61` keeps (letters, digits, marks, private use).
  static func words(_ text: String) -> [Range<String.Index>] {
    var words: [Range<String.Index>] = []
    var start: String.Index?
    let scalars = text.unicodeScalars
    var index = scalars.startIndex
    while index < scalars.endIndex {
      let inWord = isWordScalar(scalars[index])
      if inWord, start == nil { start = index }
      if !inWord, let begun = start {
        words.append(begun..<index)
        start = nil
      }
      index = scalars.index(after: index)
    }
    if let begun = start { words.append(begun..<text.endIndex) }
    return words
  }

  /// Whether `scalar` is part of a word: an ASCII letter or digit, or beyond ASCII a letter, number, mark or
  /// private-use character.
  private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.isASCII {
      let value = scalar.value | 0x20
      return (0x61...0x7A).contains(value) || (0x30...0x39).contains(scalar.value)
    }
    switch scalar.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber,
      .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark, .privateUse:
      return true
    default:
      return false
    }
  }

  /// A query word's tokens, folded: one word of a query may be several of the index (`don't` is `don`, `t`).
  static func tokens(_ word: Substring) -> [String] {
    let word = String(word)
    return words(word).map { fold(word[$0]) }
  }

  /// `word` without case or diacritics; an ASCII word (most of them, and 50 times faster) without Foundation.
  static func fold(_ word: Substring) -> String {
    guard word.utf8.allSatisfy({ $0 < 0x80 }) else {
      return word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
    return String(decoding: word.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
  }

  /// Up to ``excerptWords`` words of `text` around its best run of matches of `phrases` (each a run of tokens, the
  /// last one a prefix), `…` where cut; and the ranges of the matches in it.
  static func excerpt(of text: String, matching phrases: [[String]]) -> (String, [Range<String.Index>]) {
    let words = words(text)
    guard !words.isEmpty else { return (text, []) }
    let folded = words.map { fold(text[$0]) }
    // Each match: the phrase, its first word and its last.
    var matches: [(phrase: Int, first: Int, last: Int)] = []
    for start in folded.indices {
      for (number, phrase) in phrases.enumerated() where !phrase.isEmpty && start + phrase.count <= folded.count {
        let last = start + phrase.count - 1
        let whole = zip(folded[start..<last], phrase.dropLast()).allSatisfy { $0 == $1 }
        if whole, folded[last].hasPrefix(phrase[phrase.count - 1]) {
          matches.append((number, start, last))
        }
      }
    }
    var first = 0
    var end = words.count
    if words.count > excerptWords {
      // Of the windows that start at a match, the one with the most phrases, then the most matches; its matches
      // centred in it.
      var best: (phrases: Int, matches: Int, lower: Int, upper: Int)?
      for match in matches {
        let inside = matches.filter { $0.first >= match.first && $0.last < match.first + excerptWords }
        guard let upper = inside.map(\.last).max() else { continue }
        let score = (Set(inside.map(\.phrase)).count, inside.count)
        if best == nil || score.0 > best!.phrases || (score.0 == best!.phrases && score.1 > best!.matches) {
          best = (score.0, score.1, match.first, upper)
        }
      }
      if let best {
        let slack = excerptWords - (best.upper - best.lower + 1)
        first = min(max(0, best.lower - slack / 2), words.count - excerptWords)
      }
      end = first + excerptWords
    }
    let lower = first == 0 ? text.startIndex : words[first].lowerBound
    let upper = end == words.count ? text.endIndex : words[end - 1].upperBound
    // Built as UTF-8, the matches' bounds counted in its bytes: they are scalar boundaries of the result.
    var excerpt = first == 0 ? "" : "…"
    var bounds: [(Int, Int)] = []
    var cursor = lower
    for match in matches where match.first >= first && match.last < end {
      let range = words[match.first].lowerBound..<words[match.last].upperBound
      guard range.lowerBound >= cursor else { continue }
      excerpt += text[cursor..<range.lowerBound]
      let start = excerpt.utf8.count
      excerpt += text[range]
      bounds.append((start, excerpt.utf8.count))
      cursor = range.upperBound
    }
    excerpt += text[cursor..<upper]
    if end < words.count { excerpt += "…" }
    let utf8 = excerpt.utf8
    let highlights = bounds.map { start, end in
      utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)
    }
    return (excerpt, highlights)
  }
}
