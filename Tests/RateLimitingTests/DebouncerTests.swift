import Clocks
import RateLimiting
import TestSupport
import Testing

/// REQUIREMENTS D1, D3: the latest call runs after a quiet interval, on an injected clock.
@Suite("Debouncer", .timeLimit(.minutes(1)))
struct DebouncerTests {
  let clock = TestClock()
  let origin: TestClock<Duration>.Instant
  let ran = Recorder<(value: Int, ms: Int64)>()

  init() { origin = clock.now }

  /// Calls `debouncer` with an action that records `value` and the time it ran.
  private func call(_ debouncer: Debouncer<TestClock<Duration>>, _ value: Int) {
    debouncer.call { [ran, clock, origin] in ran.record((value, clock.milliseconds(since: origin))) }
  }

  private func advance(to ms: Int64) async {
    await clock.advance(to: origin.advanced(by: .milliseconds(ms)))
  }

  @Test("A burst of calls runs only the latest, one interval after it")
  func latestWins() async {
    let debouncer = Debouncer(interval: .milliseconds(300), clock: clock)
    call(debouncer, 1)
    await advance(to: 100)
    call(debouncer, 2)
    await advance(to: 250)
    call(debouncer, 3)
    await advance(to: 549)
    await settle()
    #expect(ran.count == 0, "3 was called at 250 ms; its quiet interval ends at 550 ms")
    await advance(to: 550)
    #expect(await eventually { ran.count == 1 })
    await settle()
    #expect(ran.elements.map(\.value) == [3])
    #expect(ran.elements.map(\.ms) == [550])
    #expect(!debouncer.hasPending)
  }

  @Test("A call exactly at the end of the quiet interval does not cancel the pending one")
  func boundary() async {
    let debouncer = Debouncer(interval: .milliseconds(300), clock: clock)
    call(debouncer, 1)
    await advance(to: 300)
    call(debouncer, 2)
    #expect(await eventually { ran.count == 1 })
    #expect(ran.elements.first?.value == 1)
    await advance(to: 600)
    #expect(await eventually { ran.count == 2 })
    #expect(ran.elements.map(\.value) == [1, 2])
    #expect(ran.elements.map(\.ms) == [300, 600])
  }

  @Test("flush runs the pending action now; cancel drops it")
  func flushAndCancel() async {
    let debouncer = Debouncer(interval: .milliseconds(300), clock: clock)
    call(debouncer, 1)
    await debouncer.flush()
    #expect(ran.elements.map(\.value) == [1])
    #expect(ran.elements.map(\.ms) == [0])

    call(debouncer, 2)
    #expect(debouncer.hasPending)
    debouncer.cancel()
    #expect(!debouncer.hasPending)
    await advance(to: 1_000)
    await settle()
    #expect(ran.elements.map(\.value) == [1], "neither the flushed nor the cancelled action runs again")
  }
}
