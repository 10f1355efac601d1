import Clocks
import RateLimiting
import TestSupport
import Testing

/// `reserve(cost:)`: a place in line taken when the call is made, waited on later, in any order.
@Suite("Reservations", .timeLimit(.minutes(3)))
struct ReservationTests {
  /// The user manager's shape: one a second, ten in line counting the one leaving now.
  private func userManagerLimiter() -> (LeakyBucket<TestClock<Duration>>, TestClock<Duration>) {
    let clock = TestClock()
    return (LeakyBucket(rate: .perSecond(1), capacity: 10, clock: clock), clock)
  }

  @Test("Eleven reservations made in order: the eleventh is refused, and the ten are admitted in reservation order")
  func callOrder() async throws {
    let (limiter, clock) = userManagerLimiter()
    let start = clock.now
    var places: [any RateLimitReservation] = []
    for _ in 0..<10 { places.append(try await limiter.reserve(cost: 1)) }
    let refusal = await #expect(throws: RateLimitError.self) { try await limiter.reserve(cost: 1) }
    #expect(refusal?.kind == .queueFull)

    // WHEN they wait in reverse order, each in a task of its own
    let admitted = Recorder<(index: Int, ms: Int64)>()
    let probes = places.enumerated().reversed().map { index, place in
      TaskProbe {
        try await place.wait()
        admitted.record((index, clock.milliseconds(since: start)))
      }
    }
    #expect(await eventually { admitted.count == 1 })
    for second in 1..<10 {
      #expect(await clock.sleeperArrived())
      await clock.advance(to: start.advanced(by: .seconds(second)))
      #expect(await eventually { admitted.count == second + 1 })
    }
    // THEN each went at its place's second, in the order the places were taken
    #expect(admitted.elements.map(\.index) == Array(0..<10))
    #expect(admitted.elements.map(\.ms) == (0..<10).map { Int64($0) * 1_000 })
    for probe in probes { #expect(await probe.error() == nil) }
  }

  @Test("A reservation given up before its owner waits frees its place for the caller behind")
  func cancelledBeforeWaiting() async throws {
    let (limiter, clock) = userManagerLimiter()
    let start = clock.now
    let first = try await limiter.reserve(cost: 1)  // admitted now
    let second = try await limiter.reserve(cost: 1)  // the head, due at 1 s
    let third = try await limiter.reserve(cost: 1)  // behind it
    second.cancel()
    let thirdAdmitted = TaskProbe {
      try await third.wait()
      return clock.milliseconds(since: start)
    }
    try await first.wait()
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(1))
    #expect(await thirdAdmitted.value() == 1_000, "the third took the cancelled second's turn")
  }

  @Test("A reservation released without a wait gives its place up too")
  func released() async throws {
    let (limiter, clock) = userManagerLimiter()
    #expect(limiter.tryAcquire())
    do { _ = try await limiter.reserve(cost: 1) }
    #expect(limiter.queuedCount == 0)
    await clock.advance(by: .seconds(1))
    #expect(limiter.tryAcquire(), "the released place's permit was never taken")
  }

  @Test("An owner cancelled while waiting leaves the line; the one behind takes its turn")
  func cancelledWhileWaiting() async throws {
    let (limiter, clock) = userManagerLimiter()
    let start = clock.now
    #expect(limiter.tryAcquire())
    let head = try await limiter.reserve(cost: 1)
    let behind = try await limiter.reserve(cost: 1)
    let last = try await limiter.reserve(cost: 1)
    let headProbe = TaskProbe { try await head.wait() }
    let behindProbe = TaskProbe { try await behind.wait() }
    let lastProbe = TaskProbe {
      try await last.wait()
      return clock.milliseconds(since: start)
    }
    #expect(await clock.sleeperArrived())
    behindProbe.cancel()
    #expect(await behindProbe.error() is CancellationError)
    await clock.advance(by: .seconds(1))
    #expect(await headProbe.finished() != nil)
    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(1))
    #expect(await lastProbe.value() == 2_000)
  }

  @Test("A limiter of its own kind gets the default: the place is taken when the owner waits")
  func deferredDefault() async throws {
    let counting = CountingLimiter()
    let place = try await counting.reserve(cost: 2)
    #expect(counting.acquired.elements.isEmpty)
    try await place.wait()
    #expect(counting.acquired.elements == [2])
  }
}

/// A limiter that admits everything and records each acquire's cost.
private struct CountingLimiter: RateLimiter {
  let acquired = Recorder<Int>()

  func acquire(cost: Int) async throws { acquired.record(cost) }
  func acquire(cost: Int, maxWait: Duration) async throws { acquired.record(cost) }
  func tryAcquire(cost: Int) -> Bool { true }
}
