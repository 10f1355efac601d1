import Clocks
import RateLimiting
import TestSupport
import Testing

/// REQUIREMENTS D2, D3: each throttle mode, including calls exactly at an interval boundary.
@Suite("Throttler", .timeLimit(.minutes(1)))
struct ThrottlerTests {
  let clock = TestClock()
  let origin: TestClock<Duration>.Instant
  let ran = Recorder<(value: Int, ms: Int64)>()

  init() { origin = clock.now }

  @discardableResult
  private func call(_ throttler: Throttler<TestClock<Duration>>, _ value: Int) -> Bool {
    throttler.call { [ran, clock, origin] in ran.record((value, clock.milliseconds(since: origin))) }
  }

  private func advance(to ms: Int64) async {
    await clock.advance(to: origin.advanced(by: .milliseconds(ms)))
  }

  @Test("Leading: the first call runs at once, the rest of the interval is dropped, the boundary call runs")
  func leading() async {
    let throttler = Throttler(interval: .seconds(1), mode: .leading, clock: clock)
    #expect(call(throttler, 1))
    await advance(to: 500)
    #expect(!call(throttler, 2))
    await advance(to: 999)
    #expect(!call(throttler, 3))
    await advance(to: 1_000)
    #expect(call(throttler, 4), "exactly one interval after the last run")
    #expect(!call(throttler, 5))
    #expect(await eventually { ran.count == 2 })
    await settle()
    #expect(ran.elements.map(\.value) == [1, 4])
  }

  @Test("Trailing-latest: the latest call of the interval runs at its end; a call at the end opens the next")
  func trailingLatest() async {
    let throttler = Throttler(interval: .seconds(1), mode: .trailingLatest, clock: clock)
    #expect(call(throttler, 1))
    await advance(to: 300)
    call(throttler, 2)
    await advance(to: 600)
    call(throttler, 3)
    #expect(await clock.sleeperArrived())
    await advance(to: 999)
    await settle()
    #expect(ran.count == 0, "nothing runs before the interval ends")
    await advance(to: 1_000)
    call(throttler, 4)  // exactly at the boundary: the next interval's
    #expect(await eventually { ran.count == 1 })
    #expect(await clock.sleeperArrived())
    await advance(to: 2_000)
    #expect(await eventually { ran.count == 2 })
    await settle()
    #expect(ran.elements.map(\.value) == [3, 4])
    #expect(ran.elements.map(\.ms) == [1_000, 2_000])
  }

  @Test("Trailing-latest: one run per interval under a steady stream of calls, and the last call is not lost")
  func trailingSpacing() async {
    // Calls every 30 ms, interval 100 ms: a window opens at 0, 120, 240, … (the first call after the previous one
    // closed) and runs the latest call made in it at its end.
    let throttler = Throttler(interval: .milliseconds(100), mode: .trailingLatest, clock: clock)
    for tick in 0..<50 {
      call(throttler, tick)
      #expect(await clock.sleeperArrived())
      await advance(to: Int64(tick + 1) * 30)
    }
    await advance(to: 2_000)
    #expect(await eventually { ran.count == 13 })
    await settle()
    #expect(ran.elements.map(\.ms) == (0...12).map { 100 + Int64($0) * 120 })
    #expect(ran.elements.map(\.value) == (0...11).map { 3 + $0 * 4 } + [49])
  }

  @Test("Trailing-latest with a late timer: each call still runs once, in its own interval, none merged or lost")
  func trailingLateTimer() async {
    // GIVEN a throttler whose timer wakes 5 s late
    let late = Throttler(
      interval: .seconds(1), mode: .trailingLatest, clock: LateClock(base: clock, lateness: .seconds(5)))
    func call(_ value: Int) {
      late.call { [ran, clock, origin] in ran.record((value, clock.milliseconds(since: origin))) }
    }
    // WHEN calls come at 0, 1 and 2 s, each at the end of the previous one's interval
    call(0)
    await advance(to: 1_000)
    call(1)
    await advance(to: 2_000)
    call(2)
    // THEN each call's arrival runs the overdue one; the last runs when its (late) timer fires at 3 + 5 s
    #expect(await eventually { ran.count == 2 })
    #expect(await clock.sleeperArrived())
    await advance(to: 8_000)
    #expect(await eventually { ran.count == 3 })
    await settle()
    #expect(ran.elements.map(\.value) == [0, 1, 2])
    #expect(ran.elements.map(\.ms) == [1_000, 2_000, 8_000])
  }

  @Test("cancel drops the trailing call")
  func cancelTrailing() async {
    let throttler = Throttler(interval: .seconds(1), mode: .trailingLatest, clock: clock)
    call(throttler, 1)
    throttler.cancel()
    await advance(to: 2_000)
    await settle()
    #expect(ran.count == 0)
  }

  @Test("Drop-while-running: calls made while the operation runs are ignored; the next one after it runs")
  func dropWhileRunning() async {
    let throttler = Throttler(interval: .zero, mode: .dropWhileRunning, clock: clock)
    let gate = AsyncStream<Void>.makeStream()
    let started = Recorder<Int>()
    #expect(
      throttler.call {
        started.record(1)
        for await _ in gate.stream { break }
      })
    #expect(await eventually { started.count == 1 })
    #expect(!throttler.call { started.record(2) }, "the first is still running")
    gate.continuation.yield()
    #expect(await eventually { throttler.call { started.record(3) } })
    #expect(await eventually { started.count == 2 })
    #expect(started.elements == [1, 3])
  }
}
