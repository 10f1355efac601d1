import GRDB
import GRDBSQLite

/// The order of search hits, as an FTS5 function of the chat store's connections: `keel_rank(message_search)` is
/// lower the better a message matches — the more often its text has each word of the query, each word's repeats
/// counting less and less (BM25's term-frequency saturation, k1 = 1.2), every word alike.
///
/// It reads only what the full-text index holds for the row at hand. FTS5's `bm25` also weighs a message's length,
/// which it reads from another table for every match: three to eight times the time of a search of a large store
/// (Documentation/Decisions/0023). Chat messages are short, and a shorter one is not the better answer for it.
enum SearchRank {
  /// The function's name in SQL.
  static let name = "keel_rank"

  /// Adds the function to the connection `db`.
  static func register(in db: Database) throws {
    let api = FTS5.api(db)
    let code = api.pointee.xCreateFunction(UnsafeMutablePointer(mutating: api), name, nil, rank, nil)
    guard code == SQLITE_OK else {
      throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "FTS5 did not take \(name).")
    }
  }
}

/// Minus the sum, over the query's phrases, of `tf × 2.2 / (tf + 1.2)`, where `tf` is how many times the phrase is
/// in the row's text (column 0; the conversation column only filters).
private let rank: fts5_extension_function = { api, context, result, _, _ in
  guard let api = api?.pointee, let context,
    let phraseCount = api.xPhraseCount, let first = api.xPhraseFirst, let next = api.xPhraseNext
  else { return }
  var score = 0.0
  for phrase in 0..<phraseCount(context) {
    var iterator = Fts5PhraseIter()
    var column: Int32 = 0
    var offset: Int32 = 0
    var frequency = 0.0
    guard first(context, phrase, &iterator, &column, &offset) == SQLITE_OK else { continue }
    while column >= 0 {
      if column == 0 { frequency += 1 }
      next(context, &iterator, &column, &offset)
    }
    score += frequency * 2.2 / (frequency + 1.2)
  }
  sqlite3_result_double(result, -score)
}
