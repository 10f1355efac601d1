import Foundation
import GRDB
import Persistence

extension ChatStore {
  /// What became of a change the outbox sent (an edit, a deletion, a reaction): applied, or refused with the server's
  /// reason. Kept in the store, so that a process other than the one that sent it (another command on the same data
  /// directory) learns it too.
  struct ChangeOutcome: Sendable, Equatable {
    /// The server's reason, for a refused change; `nil` for an applied one.
    var refusal: String?
    /// The backend's error code (`E403`, `E404`) and the HTTP status of a refusal.
    var serverCode: String?
    var statusCode: Int?
  }

  /// How many outcomes the store keeps: the oldest go first.
  static let keptChangeOutcomes = 1_000

  /// Records what became of the change `changeID`.
  func recordOutcome(_ outcome: ChangeOutcome, of changeID: String, at date: Date) async throws {
    try await write("record what became of a change") { db in
      try db.execute(
        sql: """
          INSERT OR REPLACE INTO changeOutcome (changeID, refusal, serverCode, statusCode, settledAt)
          VALUES (?, ?, ?, ?, ?)
          """,
        arguments: [changeID, outcome.refusal, outcome.serverCode, outcome.statusCode, Self.milliseconds(date)])
      try db.execute(
        sql: """
          DELETE FROM changeOutcome WHERE changeID NOT IN
            (SELECT changeID FROM changeOutcome ORDER BY settledAt DESC LIMIT ?)
          """, arguments: [Self.keptChangeOutcomes])
    }
  }

  /// What became of the change `changeID`; `nil` while it has not settled.
  func outcome(ofChange changeID: String) async throws -> ChangeOutcome? {
    try await read("read what became of a change") { db in
      try Row.fetchOne(db, sql: "SELECT * FROM changeOutcome WHERE changeID = ?", arguments: [changeID]).map { row in
        ChangeOutcome(refusal: row["refusal"], serverCode: row["serverCode"], statusCode: row["statusCode"])
      }
    }
  }
}
