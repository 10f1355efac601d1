import Foundation
import NIOSSL
import PostgresNIO

/// Where a ``PostgresGCRAStore`` connects, read from a URL such as `postgres://keel@127.0.0.1:5432/keel`.
///
/// - `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`: TCP; the port defaults to 5432, the password to the
///   `PGPASSWORD` environment variable.
/// - `postgres://USER@/DATABASE?host=/var/run/postgresql`: the Unix socket in that directory.
/// - `?sslmode=disable|prefer|require`: TLS; `prefer` by default on TCP (as libpq does).
///
/// Its ``description`` never shows the password.
public struct PostgresStoreAddress: Sendable, CustomStringConvertible {
  /// What postgres-nio connects with.
  public let configuration: PostgresClient.Configuration
  /// The URL with any password masked, for logs and errors.
  public let description: String

  /// Reads `url`.
  ///
  /// - Parameters:
  ///   - url: The database, as described above.
  ///   - environment: Where `PGPASSWORD` is read when the URL has no password.
  /// - Throws: ``PostgresStoreError`` naming what is wrong with the URL; the message never holds the password.
  public init(_ url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
    guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? "")
    else {
      throw PostgresStoreError.invalidAddress("it is not a postgres:// URL")
    }
    let masked = Self.masked(components)
    guard let user = components.user, !user.isEmpty else {
      throw PostgresStoreError.invalidAddress("\(masked) names no user (postgres://USER@HOST/DATABASE)")
    }
    let database = components.path.split(separator: "/").first.map(String.init)
    guard let database, !database.isEmpty else {
      throw PostgresStoreError.invalidAddress("\(masked) names no database (postgres://USER@HOST/DATABASE)")
    }
    let password = components.password ?? environment["PGPASSWORD"]
    let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { $1 }
    if let socketDirectory = query["host"], socketDirectory.hasPrefix("/") {
      let port = components.port ?? 5432
      configuration = PostgresClient.Configuration(
        unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password, database: database)
    } else {
      guard let host = components.host, !host.isEmpty else {
        throw PostgresStoreError.invalidAddress("\(masked) names no host (postgres://USER@HOST/DATABASE)")
      }
      let tls: PostgresClient.Configuration.TLS
      switch query["sslmode"] ?? "prefer" {
      case "disable": tls = .disable
      case "prefer": tls = .prefer(.makeClientConfiguration())
      case "require": tls = .require(.makeClientConfiguration())
      case let other:
        throw PostgresStoreError.invalidAddress("sslmode \(other) is not disable, prefer or require")
      }
      configuration = PostgresClient.Configuration(
        host: host, port: components.port ?? 5432, username: user, password: password, database: database, tls: tls)
    }
    description = masked
  }

  private static func masked(_ components: URLComponents) -> String {
    var masked = components
    if masked.password != nil { masked.password = "***" }
    return masked.string ?? "the store's URL"
  }
}
