import Foundation
import GRDB
import Persistence

extension ChatStore {
  /// The server paths of the files of messages deleted (or gone with their conversation) since the last call, which
  /// are then forgotten: what the account's file cache must forget too, so that a deleted file leaves no copy here.
  ///
  /// - Throws: `PersistenceError` for a storage failure; the paths stay for the next call then.
  func takeReleasedFiles() async throws -> [String] {
    // The usual case, nothing deleted since, is a read: no write transaction on every download.
    let any = try await read("look for files of deleted messages") { db in
      try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM releasedFile)") ?? false
    }
    guard any else { return [] }
    return try await write("take the files of deleted messages") { db in
      let urls = try String.fetchAll(db, sql: "SELECT url FROM releasedFile")
      try db.execute(sql: "DELETE FROM releasedFile")
      return urls
    }
  }
}
