import Foundation
import GRDB
import KeelErrors

/// A first-in, first-out queue of `Codable` elements in an SQLite database (through GRDB), for work that must
/// outlive the process: analytics events waiting for upload (REQUIREMENTS E2, E3, E5).
///
/// ```swift
/// import Foundation
///
/// struct AnalyticsEvent: Codable, Sendable { var name: String }
/// let dataDirectory = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
///
/// let queue = try DurableQueue<AnalyticsEvent>(
///   url: dataDirectory.appending(path: "events.sqlite"), capacity: 100_000, overflow: .dropOldest)
/// try await queue.enqueue(AnalyticsEvent(name: "app_opened"))   // returns once the event is committed
/// let batch = try await queue.peek(limit: 50)         // oldest first, skipping items not due yet
/// try await queue.acknowledge(batch.map(\.id))        // delivered: delete
/// try await queue.release(batch.map(\.id), retryAt: Date().addingTimeInterval(30))  // failed: retry later
/// ```
///
/// ## Durability
/// The database is in WAL mode; ``Durability`` chooses what a returned `enqueue` survives. With
/// ``Durability/survivesPowerLoss`` (`synchronous = FULL`, the default here) every write transaction appends to the
/// write-ahead log and `fsync`s it before the call returns; with ``Durability/survivesCrash`` (`NORMAL`) the
/// transaction is in the log, in the operating system's hands, when the call returns, and is `fsync`ed at the next
/// checkpoint. Either way an element whose `enqueue` returned:
/// - survives the process being killed at any instant (SIGKILL, a crash, the OS ending a suspended app): SQLite
///   ignores a transaction whose commit record is not in the log, and rolls nothing back that was committed;
/// - under ``Durability/survivesPowerLoss``, survives power loss or an OS crash too, as far as the storage honours
///   `fsync`; under ``Durability/survivesCrash`` the last transactions before a power loss may be lost, and the file
///   stays whole. On Apple platforms `fsync` does not flush the drive's own write cache; `F_FULLFSYNC` is not
///   requested.
/// The price of ``Durability/survivesPowerLoss`` is one `fsync` per write transaction: enqueue in batches where you
/// can (`keel-bench --filter durableQueue` measures both).
///
/// ## Capacity
/// At most `capacity` elements are pending; an enqueue that would exceed it follows ``OverflowPolicy``, and the
/// overflow is counted in ``statistics()`` across restarts.
///
/// ## Dead letters
/// ``deadLetter(_:reason:)`` takes poison elements out of delivery for good, with the reason, into a table capped at
/// ``deadLetterCapacity``: a letter kept stays until it is removed or re-queued, and one that finds the table full is
/// not kept and is counted instead. ``peek(limit:now:)`` moves a payload that no longer decodes there by itself rather than
/// throw: an error would block the head of the queue forever.
///
/// ## Failures
/// Every failure is a ``PersistenceError``: `SQLITE_FULL` is `PersistenceError.Kind.diskFull`, an unopenable or
/// read-only file `PersistenceError.Kind.permissionDenied`, a damaged file or one that is not a database
/// `PersistenceError.Kind.corrupted`. A task cancelled before its transaction commits throws `CancellationError`,
/// and the transaction is rolled back.
///
/// Safe to share between tasks and threads: GRDB serializes the writes and runs reads concurrently on snapshots.
/// Open one `DurableQueue` per file in a process.
public final class DurableQueue<Element: Codable & Sendable>: SQLiteStore {
  /// The database file.
  public let url: URL
  /// The most elements pending at once.
  public let capacity: Int
  /// What an enqueue beyond ``capacity`` does.
  public let overflow: OverflowPolicy
  /// The most dead letters kept; past it new ones are not kept and are counted in
  /// ``DurableQueueStatistics/deadLettersDropped``.
  public let deadLetterCapacity: Int
  /// What a committed write survives.
  public let durability: Durability

  package let pool: DatabasePool
  let now: @Sendable () -> Date

  /// Opens the queue in the file at `url`, creating the file, its directory and the tables if needed.
  ///
  /// - Parameters:
  ///   - url: A file URL for the database. SQLite adds `-wal` and `-shm` files beside it.
  ///   - capacity: The most elements pending at once, at least 1.
  ///   - overflow: What an enqueue beyond `capacity` does.
  ///   - deadLetterCapacity: The most dead letters kept, at least 1.
  ///   - durability: What a committed write survives; by default a power loss too (one `fsync` per transaction).
  ///   - now: The clock for enqueue times, dead-letter times and the default of ``peek(limit:now:)``.
  /// - Throws: ``PersistenceError``: `PersistenceError.Kind.invalidInput` for a capacity below 1 or a URL that is
  ///   not a file, `PersistenceError.Kind.corrupted` when the file exists but is not a healthy queue database,
  ///   `PersistenceError.Kind.permissionDenied`, `PersistenceError.Kind.diskFull` or `PersistenceError.Kind.io`.
  public convenience init(
    url: URL, capacity: Int, overflow: OverflowPolicy, deadLetterCapacity: Int = 10_000,
    durability: Durability = .survivesPowerLoss, now: @escaping @Sendable () -> Date = { Date() }
  ) throws {
    try self.init(
      url: url, capacity: capacity, overflow: overflow, deadLetterCapacity: deadLetterCapacity,
      durability: durability, checkpointsBeside: false, now: now)
  }

  /// Opens the queue as ``init(url:capacity:overflow:deadLetterCapacity:durability:now:)`` does; with
  /// `checkpointsBeside`, its write-ahead log is checkpointed beside the writer (`WALCheckpointer`) instead of in the
  /// commit that takes it past 1,000 pages: for a queue whose commits come with pauses between them, each one waited
  /// on (a chat's outbox). A writer in a tight loop never lets the log start again, so for it the checkpoint beside
  /// would only compete for the processor (the event tracker's queue keeps SQLite's own).
  package init(
    url: URL, capacity: Int, overflow: OverflowPolicy, deadLetterCapacity: Int = 10_000,
    durability: Durability = .survivesPowerLoss, checkpointsBeside: Bool, now: @escaping @Sendable () -> Date
  ) throws {
    guard capacity >= 1, deadLetterCapacity >= 1 else {
      throw PersistenceError(
        .invalidInput, "A durable queue needs a capacity and a dead-letter capacity of at least 1.", path: url.path)
    }
    guard url.isFileURL else {
      throw PersistenceError(.invalidInput, "A durable queue needs a file URL, not \(url).")
    }
    self.url = url
    self.capacity = capacity
    self.overflow = overflow
    self.deadLetterCapacity = deadLetterCapacity
    self.durability = durability
    self.now = now
    pool = try Self.open(url, durability: durability, checkpointsBeside: checkpointsBeside)
  }

  private static func open(_ url: URL, durability: Durability, checkpointsBeside: Bool) throws -> DatabasePool {
    try OwnerOnlyFile.makeDirectory(url.deletingLastPathComponent(), ownedByKeel: false)
    try OwnerOnlyFile.prepare(url)
    var configuration = Configuration()
    configuration.label = "Keel.DurableQueue"
    // Only another process (or a second queue on the same file) can hold the lock; wait for it rather than fail.
    configuration.busyMode = .timeout(10)
    // One deliverer and the odd count: two readers are plenty, and each is an open connection with its own cache.
    configuration.maximumReaderCount = 2
    do {
      let pool =
        try checkpointsBeside
        ? WALCheckpointer.pool(path: url.path, configuration)
        : DatabasePool(path: url.path, configuration: configuration)
      // After the pool is open: DatabasePool sets `synchronous = NORMAL` on its writer when it enables WAL.
      try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = \(durability.synchronous)") }
      try DurableQueueSchema.migrator.migrate(pool)
      return pool
    } catch let error as DatabaseError {
      throw PersistenceError.sqlite(error, while: "open the database", path: url.path)
    } catch {
      throw PersistenceError.wrapping(error, while: "open the durable queue", path: url.path)
    }
  }

  // MARK: - Enqueueing

  /// Appends `element` and returns once it is committed to disk.
  ///
  /// - Returns: Its id, and how many old elements ``OverflowPolicy/dropOldest`` deleted to make room.
  /// - Throws: ``PersistenceError``: `PersistenceError.Kind.encoding` (nothing written),
  ///   `PersistenceError.Kind.capacityExceeded` under ``OverflowPolicy/rejectNew``, or a storage failure.
  @discardableResult
  public func enqueue(_ element: Element) async throws -> EnqueueResult {
    try await enqueue(contentsOf: [element])
  }

  /// Appends `elements`, in order, in one transaction, and returns once they are committed: all of them or, on an
  /// error, none.
  ///
  /// - Returns: Their ids, and how many elements ``OverflowPolicy/dropOldest`` deleted to make room.
  /// - Throws: ``PersistenceError``: `PersistenceError.Kind.encoding` when any element fails to encode (nothing
  ///   written), `PersistenceError.Kind.capacityExceeded` under ``OverflowPolicy/rejectNew`` when they do not all
  ///   fit (nothing written but the rejected count), or a storage failure.
  @discardableResult
  public func enqueue(contentsOf elements: [Element]) async throws -> EnqueueResult {
    guard !elements.isEmpty else { return EnqueueResult(ids: [], dropped: 0) }
    let transaction = enqueueTransaction(try encode(elements))
    return try outcome(try await write("enqueue", transaction), of: elements.count)
  }

  /// Appends `element` as ``enqueue(_:)`` does, but on the calling thread, as ``enqueueNow(encoded:)`` does: for a
  /// caller on the path to the network whose queue survives a crash (no `fsync` per commit), where the hop to the
  /// writer's queue and back took longer than the transaction.
  ///
  /// - Throws: As ``enqueue(contentsOf:)``.
  @discardableResult
  public func enqueueNow(_ element: Element) throws -> EnqueueResult {
    try enqueueNow(encoded: try encode([element]))
  }

  /// Appends elements already encoded, as ``enqueue(contentsOf:)`` does, but on the calling thread: it blocks for the
  /// transaction instead of suspending. For a caller with a faster encoder of its own whose transactions take
  /// microseconds (``Durability/survivesCrash``), where a hop to the writer's queue and back would cost more than the
  /// write; prefer ``enqueue(encoded:)`` otherwise. Each payload must be the JSON of an `Element` as `JSONDecoder` reads it; one that is not is set aside as a
  /// dead letter by the next ``peek(limit:now:)``, never lost and never blocking the queue.
  ///
  /// - Throws: As ``enqueue(contentsOf:)``.
  @discardableResult
  public func enqueueNow(encoded payloads: [Data]) throws -> EnqueueResult {
    guard !payloads.isEmpty else { return EnqueueResult(ids: [], dropped: 0) }
    return try outcome(try writeNow("enqueue", enqueueTransaction(payloads)), of: payloads.count)
  }

  /// Appends elements already encoded, as ``enqueue(contentsOf:)`` does; see ``enqueueNow(encoded:)`` for what each
  /// payload must be.
  ///
  /// - Throws: As ``enqueue(contentsOf:)``.
  @discardableResult
  public func enqueue(encoded payloads: [Data]) async throws -> EnqueueResult {
    guard !payloads.isEmpty else { return EnqueueResult(ids: [], dropped: 0) }
    return try outcome(try await write("enqueue", enqueueTransaction(payloads)), of: payloads.count)
  }

  /// The transaction that appends `payloads`, dropping or refusing by the overflow policy.
  private func enqueueTransaction(_ payloads: [Data]) -> @Sendable (Database) throws -> EnqueueOutcome {
    let enqueuedAt = now().timeIntervalSince1970
    let (capacity, overflow) = (capacity, overflow)
    return { db in
      let pending = try DurableQueueSchema.value(of: .pending, db)
      let excess = pending + payloads.count - capacity
      var kept = payloads[...]
      if excess > 0 {
        switch overflow {
        case .rejectNew:
          try DurableQueueSchema.add(payloads.count, to: .rejected, db)
          return .rejected(pending: pending)
        case .dropOldest:
          let oldest = min(excess, pending)
          try db.execute(
            sql: "DELETE FROM queue WHERE id IN (SELECT id FROM queue ORDER BY id LIMIT ?)", arguments: [oldest])
          kept = payloads.dropFirst(excess - oldest)
          try DurableQueueSchema.add(excess, to: .dropped, db)
        }
      }
      let insert = try db.cachedStatement(sql: "INSERT INTO queue (id, payload, enqueuedAt) VALUES (?, ?, ?)")
      let first = Int64(try DurableQueueSchema.value(of: .nextId, db))
      let ids = Array(first..<first + Int64(kept.count))
      for (id, payload) in zip(ids, kept) {
        try insert.execute(arguments: [id, payload, enqueuedAt])
      }
      try DurableQueueSchema.set(.nextId, to: first + Int64(kept.count), db)
      return .enqueued(EnqueueResult(ids: ids, dropped: max(excess, 0)))
    }
  }

  /// The result of an enqueue of `count` elements, or the refusal it was.
  private func outcome(_ outcome: EnqueueOutcome, of count: Int) throws -> EnqueueResult {
    switch outcome {
    case .enqueued(let result):
      return result
    case .rejected(let pending):
      throw PersistenceError(
        .capacityExceeded,
        "The durable queue at \(url.path) holds \(pending) of its \(capacity) elements; \(count) more "
          + "were refused and counted (policy rejectNew).", path: url.path)
    }
  }

  private enum EnqueueOutcome: Sendable {
    case enqueued(EnqueueResult)
    case rejected(pending: Int)
  }

  private func encode(_ elements: [Element]) throws -> [Data] {
    let encoder = JSONEncoder()
    return try elements.enumerated().map { index, element in
      do {
        return try encoder.encode(element)
      } catch {
        throw PersistenceError(
          .encoding,
          "Cannot encode element \(index) of the enqueue as JSON, so nothing was enqueued: \("\(error)".clause).",
          path: url.path, underlying: error)
      }
    }
  }

  /// What the store is called in its errors.
  package static var storeName: String { "durable queue" }
}
