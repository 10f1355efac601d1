import Clocks
import RateLimiting
import TestSupport
import Testing

// The limit is a hang guard: under ThreadSanitizer, with every suite at once on two cores, the 161 clock steps of the
// trailing-latest spacing test (each yielding until its runs are seen) took longer than a minute (CI's TSan run).
/// REQUIREMENTS D2, D3: each throttle mode, including calls exactly at an interval boundary.
@Suite("Throttler", .timeLimit(.minutes(3)))
struct ThrottlerTests {
  let runs = TimedRuns()

  @Test("Leading: the first call runs at once, the rest of the interval is dropped, the boundary call runs")
  func leading() async {
    let throttler = Throttler(interval: .seconds(1), mode: .leading, clock: runs.clock)
    #expect(throttler.call(runs.operation(1)))
    await runs.advance(to: 500)
    #expect(!throttler.call(runs.operation(2)))
    await runs.advance(to: 999)
    #expect(!throttler.call(runs.operation(3)))
    await runs.advance(to: 1_000)
    #expect(throttler.call(runs.operation(4)), "exactly one interval after the last run")
    #expect(!throttler.call(runs.operation(5)))
    #expect(await eventually { runs.ran.count == 2 })
    await settle()
    #expect(runs.ran.elements.map(\.value) == [1, 4])
  }

  @Test("Trailing-latest: the latest call of the interval runs at its end; a call at the end opens the next")
  func trailingLatest() async {
    let throttler = Throttler(interval: .seconds(1), mode: .trailingLatest, clock: runs.clock)
    #expect(throttler.call(runs.operation(1)))
    await runs.advance(to: 300)
    throttler.call(runs.operation(2))
    await runs.advance(to: 600)
    throttler.call(runs.operation(3))
    #expect(await runs.clock.sleeperArrived())
    await runs.advance(to: 999)
    await settle()
    #expect(runs.ran.count == 0, "nothing runs before the interval ends")
    await runs.advance(to: 1_000)
    throttler.call(runs.operation(4))  // exactly at the boundary: the next interval's
    #expect(await eventually { runs.ran.count == 1 })
    #expect(await runs.clock.sleeperArrived())
    await runs.advance(to: 2_000)
    #expect(await eventually { runs.ran.count == 2 })
    await settle()
    #expect(runs.ran.elements.map(\.value) == [3, 4])
    #expect(runs.ran.elements.map(\.ms) == [1_000, 2_000])
  }

  @Test("Trailing-latest: one run per interval under a steady stream of calls, and the last call is not lost")
  func trailingSpacing() async {
    // Calls every 30 ms, interval 100 ms: a window opens at 0, 120, 240, … (the first call after the previous one
    // closed) and runs the latest call made in it at its end.
    let throttler = Throttler(interval: .milliseconds(100), mode: .trailingLatest, clock: runs.clock)
    let ends: [Int64] = (0...12).map { 100 + $0 * 120 }
    var calls = 0
    // Step 10 ms at a time; before each window's end make sure its timer sleeps, after it wait for its run, so that
    // every run is observed at the instant it happened.
    for now in stride(from: Int64(0), through: 1_600, by: 10) {
      await runs.advance(to: now)
      let due = ends.filter { $0 <= now }.count
      #expect(await eventually { runs.ran.count == due }, "runs by \(now) ms")
      if now % 30 == 0, calls < 50 {
        throttler.call(runs.operation(calls))
        calls += 1
      }
      if ends.contains(now + 10) { #expect(await runs.clock.sleeperArrived()) }
    }
    #expect(runs.ran.elements.map(\.ms) == ends)
    #expect(runs.ran.elements.map(\.value) == (0...11).map { 3 + $0 * 4 } + [49])
  }

  @Test("Trailing-latest with a late timer: each call still runs once, in its own interval, none merged or lost")
  func trailingLateTimer() async {
    // GIVEN a throttler whose timer wakes 5 s late
    let late = Throttler(
      interval: .seconds(1), mode: .trailingLatest, clock: LateClock(base: runs.clock, lateness: .seconds(5)))
    // WHEN calls come at 0, 1 and 2 s, each at the end of the previous one's interval
    // THEN each call's arrival runs the overdue one (waited for, so that it records the instant it ran); the last runs
    // when its (late) timer fires at 3 + 5 s
    late.call(runs.operation(0))
    await runs.advance(to: 1_000)
    late.call(runs.operation(1))
    #expect(await eventually { runs.ran.count == 1 })
    await runs.advance(to: 2_000)
    late.call(runs.operation(2))
    #expect(await eventually { runs.ran.count == 2 })
    #expect(await runs.clock.sleeperArrived())
    await runs.advance(to: 8_000)
    #expect(await eventually { runs.ran.count == 3 })
    await settle()
    #expect(runs.ran.elements.map(\.value) == [0, 1, 2])
    #expect(runs.ran.elements.map(\.ms) == [1_000, 2_000, 8_000])
  }

  @Test("cancel drops the trailing call")
  func cancelTrailing() async {
    let throttler = Throttler(interval: .seconds(1), mode: .trailingLatest, clock: runs.clock)
    throttler.call(runs.operation(1))
    throttler.cancel()
    await runs.advance(to: 2_000)
    await settle()
    #expect(runs.ran.count == 0)
  }

  @Test("Drop-while-running: calls made while the operation runs are ignored; the next one after it runs")
  func dropWhileRunning() async {
    let throttler = Throttler(interval: .zero, mode: .dropWhileRunning, clock: runs.clock)
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
