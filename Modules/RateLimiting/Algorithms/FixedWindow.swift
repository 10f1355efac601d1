/// A fixed window: at most `permits` in each interval, the intervals laid end to end from the limiter's creation.
///
/// The simplest and cheapest counter. Its known weakness: up to twice `permits` can pass within one interval that
/// straddles a window boundary. ``SlidingWindowLog`` and ``SlidingWindowCounter`` close that gap.
///
/// ```swift
/// let limiter = FixedWindow(rate: .perMinute(60))
/// ```
public typealias FixedWindow<C: Clock<Duration>> = QueuedRateLimiter<FixedWindowPolicy, C>

/// The arithmetic of a ``FixedWindow``.
public struct FixedWindowPolicy: RateLimitPolicy {
  /// The permits per window and the window's length.
  public let rate: Rate

  private var window: Int64 = 0
  private var used = 0

  /// Windows of `rate.interval`, each admitting `rate.permits`.
  public init(rate: Rate) {
    self.rate = rate
  }

  /// The permits per window.
  public var capacity: Int { rate.permits }

  /// For example `fixed window: 60 per 60.0 seconds`.
  public var summary: String { "fixed window: \(rate)" }

  /// Now, if the current window has room; otherwise the start of the next window.
  public mutating func earliestAdmission(cost: Int, notBefore now: Int64) -> Int64 {
    let current = now / rate.intervalNanoseconds
    let usedNow = current == window ? used : 0
    guard usedNow + cost > rate.permits else { return now }
    return (current + 1) * rate.intervalNanoseconds
  }

  /// Counts `cost` in the window that holds `time`.
  public mutating func grant(cost: Int, at time: Int64) {
    let current = time / rate.intervalNanoseconds
    if current != window {
      window = current
      used = 0
    }
    used += cost
  }
}

extension QueuedRateLimiter where Policy == FixedWindowPolicy {
  /// Fixed windows of `rate.interval`, each admitting `rate.permits`, on `clock`.
  ///
  /// - Parameters:
  ///   - rate: The permits per window and the window's length.
  ///   - maxQueued: The most callers that may wait at once.
  ///   - clock: The clock to read and sleep on.
  public convenience init(rate: Rate, maxQueued: Int = 1_000, clock: C) {
    self.init(policy: FixedWindowPolicy(rate: rate), maxQueued: maxQueued, clock: clock)
  }
}

extension QueuedRateLimiter where Policy == FixedWindowPolicy, C == ContinuousClock {
  /// Fixed windows of `rate.interval`, each admitting `rate.permits`, on the continuous clock.
  public convenience init(rate: Rate, maxQueued: Int = 1_000) {
    self.init(rate: rate, maxQueued: maxQueued, clock: ContinuousClock())
  }
}
