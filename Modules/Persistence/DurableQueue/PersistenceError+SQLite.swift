import GRDB

extension PersistenceError {
  /// `error` as a persistence error, classified by its SQLite result code (see ``kind(ofSQLiteResultCode:)``), in the
  /// words of `store`, the kind of database (`durable queue`, `chat store`).
  package static func sqlite(
    _ error: DatabaseError, while operation: String, path: String, in store: String = "durable queue"
  ) -> PersistenceError {
    let kind = kind(ofSQLiteResultCode: error.resultCode.rawValue)
    let detail = error.message ?? "SQLite error \(error.extendedResultCode.rawValue)"
    let advice = kind == .corrupted ? " The file is damaged or is not a \(store) database." : ""
    return PersistenceError(
      kind, "Could not \(operation) in the \(store) at \(path): \(detail).\(advice)", path: path, underlying: error)
  }

  /// The kind for a primary SQLite result code: `SQLITE_FULL` is `Kind.diskFull`; `SQLITE_CANTOPEN`,
  /// `SQLITE_PERM`, `SQLITE_READONLY` and `SQLITE_AUTH` are `Kind.permissionDenied`; `SQLITE_CORRUPT` and
  /// `SQLITE_NOTADB` are `Kind.corrupted`; anything else (`SQLITE_IOERR`, `SQLITE_BUSY`, …) is `Kind.io`.
  static func kind(ofSQLiteResultCode code: Int32) -> Kind {
    switch ResultCode(rawValue: code).primaryResultCode {
    case .SQLITE_FULL: .diskFull
    case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_AUTH: .permissionDenied
    case .SQLITE_CORRUPT, .SQLITE_NOTADB: .corrupted
    default: .io
    }
  }
}
