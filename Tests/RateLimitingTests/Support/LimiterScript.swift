import Clocks
import RateLimiting
import TestSupport

/// One `tryAcquire` in a scripted sequence: at `ms` after the start, ask for `cost`, expect `admitted`.
struct Step: CustomStringConvertible {
  let ms: Int64
  let cost: Int
  let admitted: Bool

  var description: String { "t=\(ms)ms cost \(cost): \(admitted ? "admitted" : "rejected")" }
}

/// `t(500, 1, true)` reads as "at 500 ms, cost 1, admitted".
func t(_ ms: Int64, _ cost: Int, _ admitted: Bool) -> Step { Step(ms: ms, cost: cost, admitted: admitted) }

/// Plays `steps` against a fresh limiter and returns what actually happened, in the same form, so that a failing
/// test prints the whole sequence side by side.
func play<Policy>(
  _ steps: [Step], on makeLimiter: (TestClock<Duration>) -> QueuedRateLimiter<Policy, TestClock<Duration>>
) async -> [Step] {
  let clock = TestClock()
  let start = clock.now
  let limiter = makeLimiter(clock)
  var observed: [Step] = []
  for step in steps {
    let at = start.advanced(by: .milliseconds(step.ms))
    if clock.now < at { await clock.advance(to: at) }
    observed.append(Step(ms: step.ms, cost: step.cost, admitted: limiter.tryAcquire(cost: step.cost)))
  }
  return observed
}

/// Queues one `acquire` per cost, in order, then steps the clock to each expected instant (checking that nothing is
/// admitted a millisecond early) and returns the instants, in ms from the start, at which each was admitted.
func admissionInstants<Policy>(
  of costs: [Int], expecting expected: [Int64],
  on limiter: QueuedRateLimiter<Policy, TestClock<Duration>>, clock: TestClock<Duration>
) async -> [Int64] {
  let start = clock.now
  let admitted = Recorder<Int64>()
  var probes: [TaskProbe<Void>] = []
  for cost in costs {
    let queuedBefore = limiter.queuedCount
    probes.append(
      TaskProbe {
        try await limiter.acquire(cost: cost)
        admitted.record(clock.milliseconds(since: start))
      })
    _ = await eventually { limiter.queuedCount == queuedBefore + 1 }
  }
  for (index, instant) in expected.enumerated() {
    guard await clock.sleeperArrived() else { break }
    await clock.advance(to: start.advanced(by: .milliseconds(instant - 1)))
    await settle()
    guard admitted.count == index else { break }
    await clock.advance(to: start.advanced(by: .milliseconds(instant)))
    guard await eventually({ admitted.count == index + 1 }) else { break }
  }
  for probe in probes { probe.cancel() }
  return admitted.elements
}

/// Queues `count` acquires, each in line before the next starts, so that arrival order is index order; each records
/// its index when admitted.
func queueInOrder<Policy>(
  _ count: Int, on limiter: QueuedRateLimiter<Policy, TestClock<Duration>>
) async -> (admitted: Recorder<Int>, probes: [TaskProbe<Void>]) {
  let admitted = Recorder<Int>()
  var probes: [TaskProbe<Void>] = []
  for index in 0..<count {
    let before = limiter.queuedCount
    probes.append(
      TaskProbe {
        try await limiter.acquire()
        admitted.record(index)
      })
    _ = await eventually { limiter.queuedCount == before + 1 }
  }
  return (admitted, probes)
}

/// Advances `clock` by `step` at a time, each time once a sleeper is there, until `recorder` holds `count` elements
/// (or a step admits nobody).
func stepClock<Element>(
  _ clock: TestClock<Duration>, by step: Duration, until count: Int, of recorder: Recorder<Element>
) async {
  while recorder.count < count {
    let before = recorder.count
    guard await clock.sleeperArrived() else { return }
    await clock.advance(by: step)
    guard await eventually({ recorder.count > before }) else { return }
  }
}
