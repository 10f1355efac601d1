import Logging
import PostgresNIO
import RateLimiting

/// A `GCRAStore` in PostgreSQL: every process and machine that points its
/// `SharedRateLimiter`s at the same table shares their limits (REQUIREMENTS L2).
///
/// One row per key holds GCRA's theoretical arrival time in microseconds on the database's clock
/// (`clock_timestamp()`), the one clock of the fleet. Each admission is one `INSERT … ON CONFLICT DO UPDATE …
/// RETURNING` statement: the row lock orders concurrent callers, the clock is read after the lock is taken, and a
/// request past the queue's bound changes nothing and returns no row. Giving a slot back is one conditional `UPDATE`
/// that applies only while nobody reserved after it.
///
/// The table is created on first use unless told otherwise (``init(address:table:createsTable:timeout:logger:)``):
///
/// ```sql
/// CREATE TABLE IF NOT EXISTS keel_rate_limits (
///   key text PRIMARY KEY,
///   theoretical_arrival bigint NOT NULL  -- microseconds since 1970 on the database's clock
/// );
/// ```
///
/// The store runs a postgres-nio connection pool; call ``shutdown()`` when done with it.
///
/// ```swift
/// import RateLimiting
///
/// let store = try PostgresGCRAStore(address: PostgresStoreAddress("postgres://keel@127.0.0.1:5432/keel"))
/// let limiter = SharedRateLimiter(key: "api.example.com/app-1", rate: .perSecond(1), maxQueued: 9, store: store,
///   clock: ContinuousClock())
/// try await limiter.acquire()
/// await store.shutdown()
/// ```
public final class PostgresGCRAStore: GCRAStore {
  /// Where the store connects, its password masked in the description.
  public let address: PostgresStoreAddress
  /// The table that holds the state.
  public let table: String
  /// How long a statement (and a connection, when none is open) may take before the admission fails.
  public let timeout: Duration

  private let client: PostgresClient
  private let runner: Task<Void, Never>
  private let schema: Task<Void, any Error>?
  private let logger: Logger

  /// A store at `address`, in `table`.
  ///
  /// - Parameters:
  ///   - address: The database.
  ///   - table: The table, `name` or `schema.name`; `keel_rate_limits` by default.
  ///   - createsTable: Whether to create the table on first use if it is missing; pass `false` when a migration
  ///     owns the schema.
  ///   - timeout: How long a statement may take (connecting included) before the admission fails with the store
  ///     unavailable; 5 s by default.
  ///   - logger: Where the connection pool logs, at `debug` and above; never with the password.
  /// - Throws: ``PostgresStoreError`` for a table name that is not a plain identifier.
  public init(
    address: PostgresStoreAddress, table: String = "keel_rate_limits", createsTable: Bool = true,
    timeout: Duration = .seconds(5),
    logger: Logger = Logger(label: "keel.limits", factory: { _ in SwiftLogNoOpLogHandler() })
  ) throws {
    guard Self.isPlainName(table) else { throw PostgresStoreError.invalidTable(table) }
    self.address = address
    self.table = table
    self.timeout = timeout
    self.logger = logger
    var configuration = address.configuration
    configuration.options.connectTimeout = timeout
    configuration.options.maximumConnections = 8
    let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    self.client = client
    runner = Task { await client.run() }
    if createsTable {
      let statement = PostgresQuery(
        unsafeSQL: """
          CREATE TABLE IF NOT EXISTS \(table) (key text PRIMARY KEY, theoretical_arrival bigint NOT NULL)
          """)
      let (address, timeout) = (address.description, timeout)
      schema = Task {
        do {
          try await Self.within(timeout, at: address) { _ = try await client.query(statement, logger: logger) }
        } catch let error as PostgresStoreError {
          throw error  // timed out: no check would answer sooner
        } catch {
          // Two processes creating it at once: one of them fails on the catalog's unique index, and the table is
          // there all the same.
          let check = PostgresQuery(unsafeSQL: "SELECT to_regclass('\(table)') IS NOT NULL")
          let exists = try? await Self.within(timeout, at: address) {
            try await client.query(check, logger: logger).decode(Bool.self).first { _ in true }
          }
          guard exists == true else { throw error }
        }
      }
    } else {
      schema = nil
    }
  }

  /// Stops the connection pool; admissions after it fail with the store unavailable.
  public func shutdown() async {
    runner.cancel()
    await runner.value
  }

  /// Reserves `key`'s next slot in one statement on the database's clock.
  public func reserve(key: String, step: GCRAStep) async throws -> GCRAReservation? {
    try await ensureTable()
    let statement = PostgresQuery(
      unsafeSQL: """
        INSERT INTO \(table) AS limits (key, theoretical_arrival)
        VALUES ($1, \(Self.now) + $2)
        ON CONFLICT (key) DO UPDATE
          SET theoretical_arrival = greatest(limits.theoretical_arrival, \(Self.now)) + $2
          WHERE limits.theoretical_arrival + $3 - \(Self.now) <= $4
        RETURNING theoretical_arrival, \(Self.now)
        """,
      binds: Self.binds(key, step.increment, step.offset, step.maxWait))
    let row = try await run("reserve a slot") {
      try await self.client.query(statement, logger: self.logger).decode((Int64, Int64).self).first { _ in true }
    }
    guard let (arrival, now) = row else { return nil }
    let admission = max(now, arrival - step.increment + step.offset)
    return GCRAReservation(
      slot: GCRAStep.Slot(admission: admission, theoreticalArrival: arrival), wait: .microseconds(admission - now))
  }

  /// Gives `reservation` back if `key`'s row still holds the TAT it left.
  public func release(key: String, reservation: GCRAReservation, step: GCRAStep) async throws {
    try await ensureTable()
    let statement = PostgresQuery(
      unsafeSQL: """
        UPDATE \(table) SET theoretical_arrival = theoretical_arrival - $2
        WHERE key = $1 AND theoretical_arrival = $3
        """,
      binds: Self.binds(key, step.increment, reservation.slot.theoreticalArrival))
    try await run("give a slot back") { _ = try await self.client.query(statement, logger: self.logger) }
  }

  /// The database's clock, in microseconds since 1970, read where it stands in the statement (after the row lock).
  private static let now = "(extract(epoch from clock_timestamp()) * 1000000)::bigint"

  private func ensureTable() async throws {
    guard let schema else { return }
    do {
      try await schema.value
    } catch {
      throw PostgresStoreError.failed(address.description, doing: "create its table \(table)", error)
    }
  }

  private func run<Value: Sendable>(
    _ what: String, _ body: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    do {
      return try await Self.within(timeout, at: address.description, body)
    } catch let error as PostgresStoreError {
      throw error
    } catch is CancellationError {
      throw CancellationError()
    } catch {
      throw PostgresStoreError.failed(address.description, doing: what, error)
    }
  }

  /// Runs `body`, or fails with ``PostgresStoreError`` once `timeout` has passed.
  private static func within<Value: Sendable>(
    _ timeout: Duration, at address: String, _ body: @escaping @Sendable () async throws -> Value
  ) async throws -> Value {
    try await withThrowingTaskGroup(of: Value?.self) { group in
      group.addTask { try await body() }
      group.addTask {
        try await Task.sleep(for: timeout)
        return nil
      }
      defer { group.cancelAll() }
      guard let first = try await group.next(), let value = first else {
        throw PostgresStoreError.timedOut(address, after: timeout)
      }
      return value
    }
  }

  private static func binds(_ key: String, _ values: Int64...) -> PostgresBindings {
    var binds = PostgresBindings(capacity: values.count + 1)
    binds.append(key)
    for value in values { binds.append(value) }
    return binds
  }

  /// `name` or `schema.name`, each a letter or `_` followed by letters, digits or `_`: safe to write into SQL.
  private static func isPlainName(_ name: String) -> Bool {
    let parts = name.split(separator: ".", omittingEmptySubsequences: false)
    return (1...2).contains(parts.count)
      && parts.allSatisfy { part in
        guard let first = part.unicodeScalars.first, first == "_" || ("a"..."z").contains(first) else { return false }
        return part.unicodeScalars.allSatisfy { $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0) }
          && part.count <= 63
      }
  }
}
