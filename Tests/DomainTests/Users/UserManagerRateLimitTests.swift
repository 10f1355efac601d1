import Clocks
import Domain
import RateLimiting
import TestSupport
import Testing

/// REQUIREMENTS U8: one request per second, first at once, at most 10 in line; an eleventh is refused at once.
/// `SendbirdUserManagerIntegrationTests` shows the eleventh call refused against the Sandbox in real time; the
/// limiter's exact admission instants are pure logic on a test clock, with no server.
@Suite("User-manager preset (U8)", .timeLimit(.minutes(3)))
struct UserManagerPresetTests {
  @Test("11 simultaneous acquires: 10 admitted at 0, 1, …, 9 s; the 11th refused at t = 0")
  func elevenAtOnce() async throws {
    // GIVEN the preset on a test clock
    let clock = TestClock()
    let start = clock.now
    let limiter = LeakyBucket.userManager(clock: clock)
    let admitted = Recorder<Int64>()
    let refused = Recorder<(ms: Int64, error: RateLimitError)>()

    // WHEN 11 tasks acquire at the same instant
    let probes = (0..<11).map { _ in
      TaskProbe {
        do {
          try await limiter.acquire()
          admitted.record(clock.milliseconds(since: start))
        } catch let error as RateLimitError {
          refused.record((clock.milliseconds(since: start), error))
        }
      }
    }

    // THEN one is admitted and one refused before the clock moves, with nine in line
    #expect(await eventually { admitted.count == 1 && refused.count == 1 && limiter.queuedCount == 9 })
    let refusal = try #require(refused.elements.first)
    #expect(refusal.ms == 0)
    #expect(refusal.error.kind == .queueFull)
    #expect(refusal.error.description.contains("1 per 1.0 seconds"))

    // AND each second admits exactly one more, at the exact second
    for second in 1...9 {
      #expect(await clock.sleeperArrived())
      await clock.advance(to: start.advanced(by: .milliseconds(second * 1_000 - 1)))
      await settle()
      #expect(admitted.count == second, "nobody is admitted before \(second) s")
      await clock.advance(to: start.advanced(by: .seconds(second)))
      #expect(await eventually { admitted.count == second + 1 })
    }
    #expect(admitted.elements == (0...9).map { Int64($0) * 1_000 })
    #expect(refused.count == 1)
    for probe in probes { #expect(await probe.finished() != nil) }
  }

  @Test("Once a second has drained, the line has room for one more, due right after the last")
  func roomAfterDrain() async throws {
    let clock = TestClock()
    let limiter = LeakyBucket.userManager(clock: clock)
    #expect(limiter.tryAcquire())
    let waiting = (0..<9).map { _ in TaskProbe { try await limiter.acquire() } }
    #expect(await eventually { limiter.queuedCount == 9 })
    await #expect(throws: RateLimitError.self) { try await limiter.acquire() }

    #expect(await clock.sleeperArrived())
    await clock.advance(by: .seconds(1))
    #expect(await eventually { limiter.queuedCount == 8 })
    // At 1 s the bucket holds 9 (the one admitted now and 8 waiting): a tenth fits, an eleventh does not.
    let tenth = TaskProbe { try await limiter.acquire(cost: 1, maxWait: .seconds(9)) }
    #expect(await eventually { limiter.queuedCount == 9 })
    await #expect(throws: RateLimitError.self) { try await limiter.acquire() }
    for probe in waiting + [tenth] { probe.cancel() }
  }
}
