import KeelConcurrency

/// Lets at most one call through per `interval`, or one at a time, as its ``ThrottleMode`` says (REQUIREMENTS D2).
///
/// Operations run in tasks of their own; ``call(_:)`` never waits. Times come from the injected clock, read at the
/// moment of each call, so the decision for a call made at an interval boundary does not depend on scheduling.
///
/// ```swift
/// func save(_ draft: String) async { print("saved \(draft)") }
///
/// let throttler = Throttler(interval: .seconds(1), mode: .trailingLatest)
/// for draft in ["H", "He", "Hello"] {
///   throttler.call { await save(draft) }
/// }
/// // a second after the first call: saved Hello
/// ```
public final class Throttler<C: Clock<Duration>>: Sendable {
  /// The interval between runs (unused by ``ThrottleMode/dropWhileRunning``).
  public let interval: Duration
  /// Which calls are let through.
  public let mode: ThrottleMode
  /// The clock the throttler reads and sleeps on.
  public let clock: C

  private typealias Operation = @Sendable () async -> Void

  private struct State {
    /// `.leading`: calls before this instant are dropped.
    var blockedUntil: C.Instant?
    /// `.trailingLatest`: the open interval, the latest call made in it, and the timer that runs it at the end.
    var window: (end: C.Instant, latest: Operation, timer: Task<Void, Never>)?
    /// `.dropWhileRunning`: whether an operation is running.
    var running = false
  }

  private let state = Locked(State())

  /// Creates a throttler.
  ///
  /// - Parameters:
  ///   - interval: The interval between runs.
  ///   - mode: Which calls are let through.
  ///   - clock: The clock to read and sleep on.
  public init(interval: Duration, mode: ThrottleMode, clock: C) {
    self.interval = interval
    self.mode = mode
    self.clock = clock
  }

  /// Offers `operation` to the throttler.
  ///
  /// - Returns: `true` if the operation was started or is now the one due to run at the end of the interval; `false`
  ///   if it was dropped. A trailing operation may still be replaced by a later call.
  @discardableResult
  public func call(_ operation: @escaping @Sendable () async -> Void) -> Bool {
    switch mode {
    case .leading: callLeading(operation)
    case .trailingLatest: callTrailing(operation)
    case .dropWhileRunning: callDropWhileRunning(operation)
    }
  }

  /// Drops a trailing operation that has not run yet.
  public func cancel() {
    let window = state.withLock { state in
      defer { state.window = nil }
      return state.window
    }
    window?.timer.cancel()
  }

  private func callLeading(_ operation: @escaping Operation) -> Bool {
    let admitted = state.withLock { state in
      let now = clock.now
      if let until = state.blockedUntil, now < until { return false }
      state.blockedUntil = now.advanced(by: interval)
      return true
    }
    if admitted { Task { await operation() } }
    return admitted
  }

  private func callTrailing(_ operation: @escaping Operation) -> Bool {
    let overdue: (latest: Operation, timer: Task<Void, Never>)? = state.withLock { state in
      let now = clock.now
      var overdue: (Operation, Task<Void, Never>)?
      // The open interval has ended but its run has not happened yet (its timer is late): this call runs it, so
      // that a call's interval depends only on the time it was made.
      if let window = state.window, now >= window.end {
        overdue = (window.latest, window.timer)
        state.window = nil
      }
      if let window = state.window {
        state.window = (window.end, operation, window.timer)
      } else {
        let end = now.advanced(by: interval)
        state.window = (end, operation, trailingTimer(until: end))
      }
      return overdue
    }
    if let overdue {
      // Outside the lock: cancelling runs the clock's cancellation handler.
      overdue.timer.cancel()
      Task { await overdue.latest() }
    }
    return true
  }

  /// A task that runs the window ending at `end` when it ends, unless it is cancelled first.
  private func trailingTimer(until end: C.Instant) -> Task<Void, Never> {
    Task { [weak self, clock] in
      guard (try? await clock.sleep(untilDue: end)) != nil else { return }
      self?.runTrailing(endingAt: end)
    }
  }

  private func runTrailing(endingAt end: C.Instant) {
    let operation: Operation? = state.withLock { state in
      guard let window = state.window, window.end == end else { return nil }
      state.window = nil
      return window.latest
    }
    if let operation { Task { await operation() } }
  }

  private func callDropWhileRunning(_ operation: @escaping Operation) -> Bool {
    let admitted = state.withLock { state in
      guard !state.running else { return false }
      state.running = true
      return true
    }
    guard admitted else { return false }
    Task { [weak self] in
      await operation()
      self?.state.withLock { $0.running = false }
    }
    return true
  }
}

extension Throttler where C == ContinuousClock {
  /// Creates a throttler on the continuous clock.
  public convenience init(interval: Duration, mode: ThrottleMode) {
    self.init(interval: interval, mode: mode, clock: ContinuousClock())
  }
}
