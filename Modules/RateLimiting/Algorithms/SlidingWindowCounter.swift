/// A sliding-window counter: the fixed window's two counters, weighted to approximate a sliding window.
///
/// The estimate at an instant is the current window's count plus the previous window's count scaled by how much of
/// the previous window still overlaps the sliding one. Constant memory and much smoother than ``FixedWindow`` at the
/// boundaries. The estimate assumes the previous window's requests were spread evenly across it: when they were
/// bunched at its end, nearly twice `permits` can still pass in one sliding interval. Use ``SlidingWindowLog`` where
/// the limit must hold exactly in every interval.
///
/// ```swift
/// let limiter = SlidingWindowCounter(rate: .perSecond(10))
/// ```
public typealias SlidingWindowCounter<C: Clock<Duration>> = QueuedRateLimiter<SlidingWindowCounterPolicy, C>

/// The arithmetic of a ``SlidingWindowCounter``.
///
/// With window length *I*, previous count *p*, current count *c* and *e* elapsed in the current window, a request
/// of cost *k* is admitted when `p × (I − e) + (c + k) × I ≤ permits × I`, computed exactly in integers.
public struct SlidingWindowCounterPolicy: RateLimitPolicy {
  /// The permits per window and the window's length.
  public let rate: Rate

  private var window: Int64 = 0
  private var previous = 0
  private var current = 0

  /// A window of `rate.interval` admitting about `rate.permits`.
  public init(rate: Rate) {
    self.rate = rate
  }

  /// The permits per window.
  public var capacity: Int { rate.permits }

  /// For example `sliding-window counter: 10 per 1.0 seconds`.
  public var summary: String { "sliding-window counter: \(rate)" }

  /// Now, if the weighted estimate has room; otherwise the first instant it will.
  public mutating func earliestAdmission(cost: Int, notBefore now: Int64) -> Int64 {
    let length = rate.intervalNanoseconds
    let index = now / length
    var (previous, current) = counts(in: index)
    var start = index * length
    var elapsed = now - start
    // Within at most three windows the counts have aged out: the third starts with both at zero.
    while true {
      if let offset = firstAdmissibleOffset(previous: previous, current: current, cost: cost), offset < length {
        return start + max(offset, elapsed)
      }
      (previous, current) = (current, 0)
      start += length
      elapsed = 0
    }
  }

  /// Counts `cost` in the window that holds `time`.
  public mutating func grant(cost: Int, at time: Int64) {
    let index = time / rate.intervalNanoseconds
    (previous, current) = counts(in: index)
    window = index
    current += cost
  }

  /// The previous and current counts as seen from window `index`.
  private func counts(in index: Int64) -> (previous: Int, current: Int) {
    switch index - window {
    case 0: (previous, current)
    case 1: (current, 0)
    default: (0, 0)
    }
  }

  /// The smallest offset into a window at which `cost` fits, or `nil` when it does not fit in this window at all.
  private func firstAdmissibleOffset(previous: Int, current: Int, cost: Int) -> Int64? {
    let room = rate.permits - current - cost
    guard room >= 0 else { return nil }
    guard previous > 0 else { return 0 }
    // previous × (I − e) ≤ room × I  ⇔  e ≥ I − room × I / previous
    let length = Int128(rate.intervalNanoseconds)
    let remaining = Int128(room) * length / Int128(previous)
    return Int64(max(0, length - remaining))
  }
}

extension QueuedRateLimiter where Policy == SlidingWindowCounterPolicy {
  /// A sliding-window counter admitting about `rate.permits` in any `rate.interval`, on `clock`.
  ///
  /// - Parameters:
  ///   - rate: The permits per window and the window's length.
  ///   - maxQueued: The most callers that may wait at once.
  ///   - clock: The clock to read and sleep on.
  public convenience init(rate: Rate, maxQueued: Int = 1_000, clock: C) {
    self.init(policy: SlidingWindowCounterPolicy(rate: rate), maxQueued: maxQueued, clock: clock)
  }
}

extension QueuedRateLimiter where Policy == SlidingWindowCounterPolicy, C == ContinuousClock {
  /// A sliding-window counter admitting about `rate.permits` in any `rate.interval`, on the continuous clock.
  public convenience init(rate: Rate, maxQueued: Int = 1_000) {
    self.init(rate: rate, maxQueued: maxQueued, clock: ContinuousClock())
  }
}
