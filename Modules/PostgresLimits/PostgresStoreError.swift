import PostgresNIO

/// Why a ``PostgresGCRAStore`` could not be made or used, in a sentence that never holds a password.
public struct PostgresStoreError: Error, Sendable, CustomStringConvertible {
  /// What went wrong.
  public let description: String

  /// The store's URL cannot be used.
  static func invalidAddress(_ reason: String) -> PostgresStoreError {
    PostgresStoreError(description: "The limiter store's URL cannot be used: \(reason).")
  }

  /// The table name is not a plain SQL identifier.
  static func invalidTable(_ name: String) -> PostgresStoreError {
    PostgresStoreError(
      description: "The limiter store's table \"\(name)\" is not a plain name (letters, digits, _; schema.table).")
  }

  /// The database did not answer in time.
  static func timedOut(_ address: String, after timeout: Duration) -> PostgresStoreError {
    PostgresStoreError(description: "PostgreSQL at \(address) did not answer within \(timeout).")
  }

  /// The database answered with an error, or could not be reached.
  static func failed(_ address: String, doing what: String, _ error: any Error) -> PostgresStoreError {
    PostgresStoreError(description: "PostgreSQL at \(address) failed to \(what): \(Self.reason(error)).")
  }

  /// postgres-nio keeps the server's message out of its errors' descriptions (it may hold data): the code, the SQL
  /// state and the server's message are shown instead (the statements bind no secrets), or the connection's failure.
  private static func reason(_ error: any Error) -> String {
    guard let error = error as? PSQLError else { return "\(error)" }
    if let info = error.serverInfo {
      return "\(info[.sqlState].map { "SQLSTATE \($0): " } ?? "")\(info[.message] ?? "\(error.code)")"
    }
    return error.underlying.map { "\(error.code) (\($0))" } ?? "\(error.code)"
  }
}
