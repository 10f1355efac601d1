import ArgumentParser
import Foundation
import PostgresLimits

/// `--limiter-store URL` (or `KEEL_LIMITER_STORE`): the `keel users` commands share the application's limit with every
/// other process pointed at the same PostgreSQL database (REQUIREMENTS L2).
struct LimiterStoreOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "A PostgreSQL database that keeps the one-request-per-second limit for every process and machine, e.g. "
        + "postgres://keel@127.0.0.1:5432/keel. Also KEEL_LIMITER_STORE.",
      discussion: "The table keel_rate_limits is created on first use. Without it, the limit holds in this process."))
  var limiterStore: String?

  func validate() throws {
    guard let url = resolvedURL else { return }
    do {
      _ = try PostgresStoreAddress(url)
    } catch {
      throw ValidationError("--limiter-store: \(error)")
    }
  }

  /// The store's URL from `--limiter-store` or `KEEL_LIMITER_STORE`.
  var resolvedURL: String? {
    let url = limiterStore ?? ProcessInfo.processInfo.environment["KEEL_LIMITER_STORE"]
    return url?.isEmpty == true ? nil : url
  }

  /// The store these options name, or `nil` for the process's own limit; shut it down when the command ends.
  func store() throws -> PostgresGCRAStore? {
    guard let url = resolvedURL else { return nil }
    return try PostgresGCRAStore(address: PostgresStoreAddress(url))
  }
}
