import Clocks
import RateLimiting
import TestSupport
import Testing

/// GCRA kept in a store (REQUIREMENTS L2): the arithmetic, the queue bound, cancellation and a store that fails, on
/// a TestClock and the in-memory store that the PostgreSQL one mirrors.
@Suite("Shared GCRA", .timeLimit(.minutes(3)))
struct SharedRateLimiterTests {
  /// The user manager's policy: one a second, nine waiting behind the one going now.
  private let userManagerStep = GCRAStep(interval: 1_000_000, burst: 1, cost: 1, maxWait: 9_000_000)

  @Test("The arithmetic: slots one interval apart from the first, the 11th refused, a quiet spell starts afresh")
  func arithmetic() {
    var tat: Int64?
    var admissions: [Int64] = []
    for _ in 0..<10 {
      let slot = userManagerStep.reserve(theoreticalArrival: tat, now: 5)
      admissions.append(slot?.admission ?? -1)
      tat = slot?.theoreticalArrival
    }
    #expect(admissions == (0..<10).map { 5 + $0 * 1_000_000 })
    #expect(userManagerStep.reserve(theoreticalArrival: tat, now: 5) == nil, "the slot at 10 s is past the bound")
    #expect(userManagerStep.reserve(theoreticalArrival: tat, now: 1_000_005)?.admission == 10_000_005)
    // Long after, the TAT is in the past: admitted at once, and the TAT restarts from now.
    let fresh = userManagerStep.reserve(theoreticalArrival: tat, now: 60_000_000)
    #expect(fresh == GCRAStep.Slot(admission: 60_000_000, theoreticalArrival: 61_000_000))
  }

  @Test("Bursts and costs: a burst of 3 goes at once, then one per interval; a cost of 2 waits for two")
  func burstAndCost() {
    let single = GCRAStep(interval: 100, burst: 3, cost: 1, maxWait: 1_000)
    var tat: Int64?
    var admissions: [Int64] = []
    for _ in 0..<5 {
      let slot = single.reserve(theoreticalArrival: tat, now: 0)
      admissions.append(slot?.admission ?? -1)
      tat = slot?.theoreticalArrival
    }
    #expect(admissions == [0, 0, 0, 100, 200])
    let double = GCRAStep(interval: 100, burst: 3, cost: 2, maxWait: 1_000)
    #expect(double.reserve(theoreticalArrival: tat, now: 0)?.admission == 400)
  }

  @Test("Giving back: only the newest reservation moves the TAT back; an older one stays an unused slot")
  func release() {
    let first = userManagerStep.reserve(theoreticalArrival: nil, now: 0)!
    let second = userManagerStep.reserve(theoreticalArrival: first.theoreticalArrival, now: 0)!
    #expect(userManagerStep.release(second, theoreticalArrival: second.theoreticalArrival) == 1_000_000)
    #expect(userManagerStep.release(first, theoreticalArrival: second.theoreticalArrival) == nil)
  }

  @Test("Eleven callers on one store through two limiters (two processes): one a second, the 11th refused at once")
  func twoLimitersOneStore() async throws {
    let clock = TestClock()
    let start = clock.now
    let store = InMemoryGCRAStore(clock: clock)
    let limiters = (0..<2).map { _ in
      SharedRateLimiter(key: "app", rate: .perSecond(1), maxQueued: 9, store: store, clock: clock)
    }
    let admitted = Recorder<Int64>()
    var refusals: [RateLimitError] = []
    var places: [any RateLimitReservation] = []
    for index in 0..<11 {
      do {
        places.append(try await limiters[index % 2].reserve(cost: 1))
      } catch let error as RateLimitError {
        refusals.append(error)
      }
    }
    #expect(refusals.map(\.kind) == [.queueFull])
    #expect(refusals.first?.description.contains("shared GCRA (app): 1 per 1.0 seconds, burst 1, 9 queued") == true)
    let probes = places.map { place in
      TaskProbe {
        try await place.wait()
        admitted.record(clock.milliseconds(since: start))
      }
    }
    #expect(await eventually { admitted.count == 1 })
    for second in 1..<10 {
      #expect(await clock.sleeperArrived())
      await clock.advance(by: .seconds(1))
      #expect(await eventually { admitted.count == second + 1 })
    }
    #expect(admitted.elements.sorted() == (0..<10).map { Int64($0) * 1_000 })
    for probe in probes { #expect(await probe.error() == nil) }
  }

  @Test("A waiter cancelled while it is the newest gives its slot back; the next caller takes it")
  func cancelledNewestGivesBack() async throws {
    let clock = TestClock()
    let store = InMemoryGCRAStore(clock: clock)
    let limiter = SharedRateLimiter(key: "app", rate: .perSecond(1), maxQueued: 9, store: store, clock: clock)
    try await limiter.acquire()
    let waiting = TaskProbe { try await limiter.acquire() }
    #expect(await clock.sleeperArrived())
    #expect(store.theoreticalArrival(of: "app") == 2_000_000)
    waiting.cancel()
    #expect(await waiting.error() is CancellationError)
    #expect(await eventually { store.theoreticalArrival(of: "app") == 1_000_000 })
  }

  @Test("A waiter cancelled with others behind it leaves its slot unused: the ones behind keep theirs")
  func cancelledMiddleStaysUnused() async throws {
    let clock = TestClock()
    let start = clock.now
    let store = InMemoryGCRAStore(clock: clock)
    let limiter = SharedRateLimiter(key: "app", rate: .perSecond(1), maxQueued: 9, store: store, clock: clock)
    try await limiter.acquire()
    let middle = try await limiter.reserve(cost: 1)
    let last = try await limiter.reserve(cost: 1)
    middle.cancel()
    let lastAdmitted = TaskProbe {
      try await last.wait()
      return clock.milliseconds(since: start)
    }
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(2))
    #expect(await lastAdmitted.value() == 2_000, "its own slot, never earlier")
    await settle()
    #expect(store.theoreticalArrival(of: "app") == 3_000_000)
  }

  @Test("A store that fails: refused as storeUnavailable by default, or through the local fallback when chosen")
  func failingStore() async throws {
    let clock = TestClock()
    let refusing = SharedRateLimiter(key: "app", rate: .perSecond(1), maxQueued: 9, store: BrokenStore(), clock: clock)
    let error = await #expect(throws: RateLimitError.self) { try await refusing.acquire() }
    #expect(error?.kind == .storeUnavailable)
    #expect(error?.description.contains("the database is down") == true)

    let fellBack = Recorder<String>()
    let local = LeakyBucket(rate: .perSecond(1), capacity: 10, clock: clock)
    let falling = SharedRateLimiter(
      key: "app", rate: .perSecond(1), maxQueued: 9, store: BrokenStore(), clock: clock, fallback: .local(local),
      onFallback: { fellBack.record("\($0)") })
    try await falling.acquire()
    #expect(!local.tryAcquire(), "the local limiter admitted it")
    #expect(fellBack.elements == ["the database is down"])
  }

  @Test("maxWait shorter than the queue: a slot past it is refused as deadlineExceeded, nothing reserved")
  func maxWait() async throws {
    let clock = TestClock()
    let store = InMemoryGCRAStore(clock: clock)
    let limiter = SharedRateLimiter(key: "app", rate: .perSecond(1), maxQueued: 9, store: store, clock: clock)
    try await limiter.acquire()
    let error = await #expect(throws: RateLimitError.self) {
      try await limiter.acquire(cost: 1, maxWait: .milliseconds(500))
    }
    #expect(error?.kind == .deadlineExceeded)
    #expect(store.theoreticalArrival(of: "app") == 1_000_000)
    #expect(!limiter.tryAcquire(), "tryAcquire never admits without the store")
  }
}

/// A store that cannot be reached.
private struct BrokenStore: GCRAStore {
  struct Down: Error, CustomStringConvertible {
    var description: String { "the database is down" }
  }

  func reserve(key: String, step: GCRAStep) async throws -> GCRAReservation? { throw Down() }
  func release(key: String, reservation: GCRAReservation, step: GCRAStep) async throws { throw Down() }
}
