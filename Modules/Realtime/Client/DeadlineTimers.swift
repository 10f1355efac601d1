import Dispatch
import Foundation

/// One-shot timers on the client's clock that free everything the moment they are cancelled.
///
/// On a `ContinuousClock` (every real client) a timer is a Dispatch timer source, which a cancel releases at once. A
/// `Task.sleep` would do on any clock, but a cancelled sleep keeps its task until the deadline would have come: a
/// client that connects and disconnects often would hold each connection's heartbeat watchdog (45 s by default) and
/// connect timeout (20 s) long after the connection ended. Other clocks (a `TestClock`) get a task sleeping until the
/// deadline, which is fixed when the timer is made (not when its task first runs).
struct DeadlineTimers: Sendable {
  private let now: @Sendable () -> Duration
  private let sleepUntil: @Sendable (Duration) async throws -> Void
  private let usesDispatch: Bool

  /// Timers on `clock`, reading the time with `now` and sleeping until a time `now` gives with `sleepUntil` unless the
  /// clock is a `ContinuousClock`.
  init(
    clock: any Clock<Duration>, now: @escaping @Sendable () -> Duration,
    sleepUntil: @escaping @Sendable (Duration) async throws -> Void
  ) {
    self.now = now
    self.sleepUntil = sleepUntil
    usesDispatch = clock is ContinuousClock
  }

  /// The time on the timers' timeline: the client's clock since it was made.
  func currentTime() -> Duration { now() }

  /// Runs `action` once `delay` has passed, unless the returned timer is cancelled first.
  func after(_ delay: Duration, _ action: @escaping @Sendable () async -> Void) -> DeadlineTimer {
    guard usesDispatch else {
      let sleepUntil = self.sleepUntil
      let deadline = now() + delay
      return DeadlineTimer(
        task: Task {
          do { try await sleepUntil(deadline) } catch { return }
          await action()
        })
    }
    let source = DispatchSource.makeTimerSource(queue: .global())
    let (seconds, attoseconds) = max(delay, .zero).components
    let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    source.schedule(
      deadline: .now()
        + .nanoseconds(nanoseconds.overflow ? Int.max : Int(nanoseconds.partialValue + attoseconds / 1_000_000_000)))
    source.setEventHandler {
      source.cancel()
      Task { await action() }
    }
    source.resume()
    return DeadlineTimer(source: source)
  }
}

/// A timer of ``DeadlineTimers``.
struct DeadlineTimer: Sendable {
  private let cancellation: @Sendable () -> Void

  init(task: Task<Void, Never>) { cancellation = { task.cancel() } }

  init(source: any DispatchSourceTimer) {
    let source = TimerSource(source)
    cancellation = { source.source.cancel() }
  }

  /// A Dispatch source, which Dispatch makes safe to cancel from any thread; Swift's Dispatch overlay does not say so.
  private struct TimerSource: @unchecked Sendable {
    let source: any DispatchSourceTimer
    init(_ source: any DispatchSourceTimer) { self.source = source }
  }

  /// Stops it; its action will not run, and what it held is released now.
  func cancel() { cancellation() }
}
