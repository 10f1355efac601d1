import Clocks
import RateLimiting
import TestSupport
import Testing

/// REQUIREMENTS D1, D3: the latest call runs after a quiet interval, on an injected clock.
@Suite("Debouncer", .timeLimit(.minutes(3)))
struct DebouncerTests {
  let runs = TimedRuns()

  @Test("A burst of calls runs only the latest, one interval after it")
  func latestWins() async {
    let debouncer = Debouncer(interval: .milliseconds(300), clock: runs.clock)
    debouncer.call(runs.operation(1))
    await runs.advance(to: 100)
    debouncer.call(runs.operation(2))
    await runs.advance(to: 250)
    debouncer.call(runs.operation(3))
    await runs.advance(to: 549)
    await settle()
    #expect(runs.ran.count == 0, "3 was called at 250 ms; its quiet interval ends at 550 ms")
    await runs.advance(to: 550)
    #expect(await eventually { runs.ran.count == 1 })
    await settle()
    #expect(runs.ran.elements.map(\.value) == [3])
    #expect(runs.ran.elements.map(\.ms) == [550])
    #expect(!debouncer.hasPending)
  }

  @Test("A call exactly at the end of the quiet interval does not cancel the pending one")
  func boundary() async {
    let debouncer = Debouncer(interval: .milliseconds(300), clock: runs.clock)
    debouncer.call(runs.operation(1))
    await runs.advance(to: 300)
    debouncer.call(runs.operation(2))
    #expect(await eventually { runs.ran.count == 1 })
    #expect(runs.ran.elements.first?.value == 1)
    #expect(await runs.clock.sleeperArrived(), "the second call's timer sleeps before the clock reaches its deadline")
    await runs.advance(to: 600)
    #expect(await eventually { runs.ran.count == 2 })
    #expect(runs.ran.elements.map(\.value) == [1, 2])
    #expect(runs.ran.elements.map(\.ms) == [300, 600])
  }

  @Test("flush runs the pending action now; cancel drops it")
  func flushAndCancel() async {
    let debouncer = Debouncer(interval: .milliseconds(300), clock: runs.clock)
    debouncer.call(runs.operation(1))
    await debouncer.flush()
    #expect(runs.ran.elements.map(\.value) == [1])
    #expect(runs.ran.elements.map(\.ms) == [0])

    debouncer.call(runs.operation(2))
    #expect(debouncer.hasPending)
    debouncer.cancel()
    #expect(!debouncer.hasPending)
    await runs.advance(to: 1_000)
    await settle()
    #expect(runs.ran.elements.map(\.value) == [1], "neither the flushed nor the cancelled action runs again")
  }
}
