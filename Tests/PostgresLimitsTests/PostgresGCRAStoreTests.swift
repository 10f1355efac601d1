import Foundation
import PostgresLimits
import PostgresNIO
import RateLimiting
import TestSupport
import Testing

/// The PostgreSQL store against a real server (REQUIREMENTS L2): the statement's arithmetic, its atomicity under
/// concurrent callers, giving back, and a database that is down.
@Suite("PostgreSQL limiter store", .timeLimit(.minutes(3)))
struct PostgresGCRAStoreTests {
  private static let second: Int64 = 1_000_000
  /// The user manager's shape (nine waiting behind the one going now) with a minute for an interval, so that a slow
  /// machine's seconds between statements never drain the queue the test reads.
  private static let interval: Int64 = 60 * second
  private let userManagerStep = GCRAStep(interval: interval, burst: 1, cost: 1, maxWait: 9 * interval)

  /// A store with a minute's patience: under ThreadSanitizer with every suite running, a statement once took over
  /// 10 s, timed out in the client after the server had run it, and left a gap the contention test saw.
  private func store() async throws -> PostgresGCRAStore {
    try PostgresGCRAStore(address: PostgresStoreAddress(await LocalPostgres.url()), timeout: .seconds(60))
  }

  private func freshKey() -> String { "test/\(UUID().uuidString)" }

  @Test("Ten reservations in a row: slots exactly one interval apart on the database's clock; the 11th refused")
  func slots() async throws {
    let store = try await store()
    let key = freshKey()
    var slots: [GCRAReservation] = []
    // How long after the first statement was sent each answer came, on this machine's clock.
    var answeredAfter: [Duration] = []
    let start = ContinuousClock.now
    for _ in 0..<10 {
      slots.append(try #require(try await store.reserve(key: key, step: userManagerStep)))
      answeredAfter.append(ContinuousClock.now - start)
    }
    #expect(try await store.reserve(key: key, step: userManagerStep) == nil, "the 11th is past the bound")
    // Each reservation moved the TAT by exactly one interval: the slots behind the first are exactly a second apart.
    let arrivals = slots.map(\.slot.theoreticalArrival)
    #expect(zip(arrivals, arrivals.dropFirst()).allSatisfy { $1 - $0 == Self.interval })
    let admissions = slots.dropFirst().map(\.slot.admission)
    #expect(zip(admissions, admissions.dropFirst()).allSatisfy { $1 - $0 == Self.interval })
    #expect(slots.first?.wait == .zero)
    // Each wait is its slot's distance from the database's clock when it answered: a minute per place in line, less
    // the time the statements before it took, which is no more than the time this test waited for them (and a
    // second for the two clocks' rounding). Under the whole suite ten statements have taken over 30 s.
    for (index, reservation) in slots.enumerated().dropFirst() {
      let taken = answeredAfter[index] + .seconds(1)
      #expect(
        reservation.wait <= .seconds(60 * index) && reservation.wait >= .seconds(60 * index) - taken,
        "place \(index): waits \(reservation.wait), its answer came \(answeredAfter[index]) after the first was sent")
    }
    await store.shutdown()
  }

  @Test("Giving back: the newest reservation's slot returns to the next caller; an older one is left unused")
  func giveBack() async throws {
    let store = try await store()
    let key = freshKey()
    let first = try #require(try await store.reserve(key: key, step: userManagerStep))
    let second = try #require(try await store.reserve(key: key, step: userManagerStep))
    try await store.release(key: key, reservation: first, step: userManagerStep)  // not the newest: no change
    let third = try #require(try await store.reserve(key: key, step: userManagerStep))
    #expect(third.slot.admission == second.slot.admission + Self.interval)
    try await store.release(key: key, reservation: third, step: userManagerStep)  // the newest: its slot is free
    let fourth = try #require(try await store.reserve(key: key, step: userManagerStep))
    #expect(fourth.slot.admission == third.slot.admission)
    await store.shutdown()
  }

  @Test("8 callers on 2 stores (two processes' pools) × 25 reservations: 200 TATs exactly one interval apart")
  func atomicUnderContention() async throws {
    let stores = [try await store(), try await store()]
    let key = freshKey()
    // A minute each, so that all 200 stay queued however slowly a loaded machine makes the calls (a second each
    // drained the queue when one round took longer): each statement must have seen the one before it.
    let step = GCRAStep(interval: Self.interval, burst: 1, cost: 1, maxWait: 1_000 * Self.interval)
    let admissions = try await withThrowingTaskGroup(of: [Int64].self) { group in
      for caller in 0..<8 {
        group.addTask {
          var mine: [Int64] = []
          for _ in 0..<25 {
            let reservation = try #require(try await stores[caller % 2].reserve(key: key, step: step))
            mine.append(reservation.slot.theoreticalArrival)
          }
          return mine
        }
      }
      return try await group.reduce(into: []) { $0 += $1 }.sorted()
    }
    #expect(admissions.count == 200)
    #expect(zip(admissions, admissions.dropFirst()).allSatisfy { $1 - $0 == Self.interval })
    for store in stores { await store.shutdown() }
  }

  @Test("Two limiters on one store share its limit: six admissions take five intervals at least; a cancel leaves")
  func limiters() async throws {
    let store = try await store()
    let key = freshKey()
    let clock = ContinuousClock()
    let limiters = (0..<2).map { _ in
      SharedRateLimiter(key: key, rate: .perSecond(5), maxQueued: 9, store: store, clock: clock)
    }
    // A lower bound, which a busy machine cannot break (it only makes things later): the sixth slot is a second
    // after the first on the database's clock, and nobody is admitted before their slot.
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<6 { group.addTask { try await limiters[index % 2].acquire() } }
      try await group.waitForAll()
    }
    #expect(start.duration(to: clock.now) >= .seconds(1))

    // A waiter cancelled while it waits leaves at once (its slot given back: `giveBack` above, and the limiter's own
    // tests on the in-memory store).
    let slow = SharedRateLimiter(
      key: freshKey(), rate: Rate(1, per: .seconds(60)), maxQueued: 9, store: store, clock: clock)
    try await slow.acquire()
    let place = try await slow.reserve(cost: 1)  // a minute away
    let waiting = TaskProbe { try await place.wait() }
    waiting.cancel()
    #expect(await waiting.error() is CancellationError)
    await store.shutdown()
  }

  @Test("A database that is down: storeUnavailable within the timeout, naming it without the password")
  func down() async throws {
    let store = try PostgresGCRAStore(
      address: PostgresStoreAddress("postgres://keel:hunter2@127.0.0.1:9/keel?sslmode=disable"), timeout: .seconds(2))
    let limiter = SharedRateLimiter(
      key: freshKey(), rate: .perSecond(1), maxQueued: 9, store: store, clock: ContinuousClock())
    let error = await #expect(throws: RateLimitError.self) { try await limiter.acquire() }
    #expect(error?.kind == .storeUnavailable)
    #expect(error?.description.contains("127.0.0.1:9") == true, "\(String(describing: error))")
    #expect(error?.description.contains("hunter2") == false)
    await store.shutdown()
  }

  @Test("Addresses and tables: bad ones are typed errors before anything connects; the password is never shown")
  func addresses() throws {
    let tcp = try PostgresStoreAddress("postgres://keel:secret@db.internal:6543/limits", environment: [:])
    #expect(tcp.description == "postgres://keel:***@db.internal:6543/limits")
    #expect(tcp.configuration.host == "db.internal" && tcp.configuration.port == 6543)
    #expect(tcp.configuration.password == "secret" && tcp.configuration.database == "limits")
    let socket = try PostgresStoreAddress(
      "postgres://keel@/keel?host=/run/postgresql", environment: ["PGPASSWORD": "p"])
    #expect(socket.configuration.unixSocketPath == "/run/postgresql/.s.PGSQL.5432")
    #expect(socket.configuration.password == "p")
    for bad in [
      "mysql://keel@h/db", "postgres://h/db", "postgres://keel@h", "postgres://keel:pw@h/db?sslmode=sometimes",
    ] {
      let error = #expect(throws: PostgresStoreError.self) { try PostgresStoreAddress(bad) }
      #expect(error?.description.contains("pw") == false)
    }
    let address = try PostgresStoreAddress("postgres://keel@127.0.0.1/keel")
    #expect(throws: PostgresStoreError.self) { try PostgresGCRAStore(address: address, table: "limits; DROP TABLE x") }
  }
}
