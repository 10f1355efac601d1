import KeelConcurrency
import TestSupport

/// A clock that stands still until the test advances it: what a Sandbox started with it waits on for a latency fault,
/// so that a request it holds is answered when the test says.
///
/// Not `TestClock`: its `checkSuspension` and `advance` wait for `Task.megaYield()`, twenty detached tasks of
/// background priority in a row, and with every suite at once on two cores the busy pool left those tasks waiting so
/// long that a held request's client timed out (60 s) before the test had seen it arrive and advanced the clock. Here
/// the test sees a sleeper from its own polling, at its own priority, and advancing resumes the sleepers at once.
final class HoldingClock: Clock, Sendable {
  /// A point on the clock: a duration from its start.
  struct Instant: InstantProtocol {
    /// The time since the clock started.
    var offset: Duration

    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private struct Sleeper {
    let id: Int
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now = Instant(offset: .zero)
    var sleepers: [Sleeper] = []
    var nextID = 0
  }

  private let state = Locked(State())

  var now: Instant { state.withLock { $0.now } }
  var minimumResolution: Duration { .zero }

  /// How many tasks sleep on the clock now.
  var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        // A task cancelled before it got here has its flag set already (Swift sets it before the handler runs,
        // and the handler takes this lock), so it is not registered to wait for a resumption that never comes.
        let immediate: Result<Void, any Error>? = state.withLock { state in
          if Task.isCancelled { return .failure(CancellationError()) }
          if deadline <= state.now { return .success(()) }
          state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
          return nil
        }
        if let immediate { continuation.resume(with: immediate) }
      }
    } onCancel: {
      let sleeper = state.withLock { state -> Sleeper? in
        state.sleepers.firstIndex { $0.id == id }.map { state.sleepers.remove(at: $0) }
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Moves the clock `duration` on and wakes every sleeper whose deadline that reaches, earliest first.
  func advance(by duration: Duration) async {
    let due = state.withLock { state -> [Sleeper] in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
      state.sleepers.removeAll { $0.deadline <= now }
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
  }
}

/// Waits, in real time (up to 2 min: a loaded pool can take most of a minute to send a request), until something
/// sleeps on `clock`: a request that reached a Sandbox started with that clock and a latency fault, held there until
/// the test advances the clock.
func requestHeld(on clock: HoldingClock) async -> Bool {
  await poll(every: .milliseconds(5), for: .seconds(120)) { clock.sleeperCount > 0 }
}
