import KeelConcurrency

/// Runs only the latest of a burst of calls, once the calls have been quiet for `interval` (REQUIREMENTS D1).
///
/// Each ``call(_:)`` replaces the pending action and restarts the quiet interval. When the interval passes with no
/// new call, the pending action runs in a task of its own. Times come from the injected clock, read at the moment
/// of each call, so tests drive it with a `TestClock` and never sleep.
///
/// A call that arrives exactly when the quiet interval ends does not cancel the pending action: the interval was
/// quiet. It becomes the next pending action.
///
/// ```swift
/// func search(_ query: String) async { print("searching for \(query)") }
///
/// let debouncer = Debouncer(interval: .milliseconds(300))
/// for query in ["a", "al", "ali"] {        // typing…
///   debouncer.call { await search(query) }
/// }
/// // 300 ms after the last keystroke: searching for ali
/// ```
public final class Debouncer<C: Clock<Duration>>: Sendable {
  /// How long calls must be quiet before the latest one runs.
  public let interval: Duration
  /// The clock the debouncer reads and sleeps on.
  public let clock: C

  private struct Pending {
    let generation: UInt64
    let due: C.Instant
    let action: @Sendable () async -> Void
    let timer: Task<Void, Never>
  }

  private struct State {
    var generation: UInt64 = 0
    var pending: Pending?
  }

  private let state = Locked(State())

  /// Creates a debouncer that waits `interval` of quiet on `clock`.
  public init(interval: Duration, clock: C) {
    self.interval = interval
    self.clock = clock
  }

  /// Whether an action is waiting for the quiet interval to end.
  public var hasPending: Bool { state.withLock { $0.pending != nil } }

  /// Makes `action` the pending action and restarts the quiet interval.
  public func call(_ action: @escaping @Sendable () async -> Void) {
    let replaced: (pending: Pending, isDue: Bool)? = state.withLock { state in
      let now = clock.now
      let replaced = state.pending.map { ($0, $0.due <= now) }
      state.generation &+= 1
      let generation = state.generation
      let due = now.advanced(by: interval)
      let timer = Task { [weak self, clock] in
        guard (try? await clock.sleep(untilDue: due)) != nil else { return }
        await self?.fire(generation: generation)
      }
      state.pending = Pending(generation: generation, due: due, action: action, timer: timer)
      return replaced
    }
    // Outside the lock: cancelling runs the clock's cancellation handler.
    guard let replaced else { return }
    replaced.pending.timer.cancel()
    if replaced.isDue { Task { await replaced.pending.action() } }
  }

  /// Runs the pending action now, if there is one, and waits for it to finish.
  public func flush() async {
    guard let pending = takePending(generation: nil) else { return }
    pending.timer.cancel()
    await pending.action()
  }

  /// Drops the pending action, if any, without running it.
  public func cancel() {
    takePending(generation: nil)?.timer.cancel()
  }

  private func fire(generation: UInt64) async {
    await takePending(generation: generation)?.action()
  }

  /// Takes the pending action if it is the one of `generation` (any one when `nil`).
  private func takePending(generation: UInt64?) -> Pending? {
    state.withLock { state in
      guard let pending = state.pending, generation == nil || pending.generation == generation else { return nil }
      state.pending = nil
      return pending
    }
  }
}

extension Debouncer where C == ContinuousClock {
  /// Creates a debouncer that waits `interval` of quiet on the continuous clock.
  public convenience init(interval: Duration) {
    self.init(interval: interval, clock: ContinuousClock())
  }
}
