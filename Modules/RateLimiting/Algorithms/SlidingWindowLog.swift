import DequeModule

/// A sliding-window log: at most `permits` in any interval of length `interval`, exactly.
///
/// Keeps the time and cost of every admission still inside the window, so it is exact at any instant, at a memory
/// cost of one entry per admitted request (at most `permits` entries).
///
/// ```swift
/// let limiter = SlidingWindowLog(rate: Rate(100, per: .seconds(10)))
/// ```
public typealias SlidingWindowLog<C: Clock<Duration>> = QueuedRateLimiter<SlidingWindowLogPolicy, C>

/// The arithmetic of a ``SlidingWindowLog``.
///
/// An admission at time *t* occupies the half-open window [*t*, *t* + `interval`).
public struct SlidingWindowLogPolicy: RateLimitPolicy {
  /// The permits per window and the window's length.
  public let rate: Rate

  private var log: Deque<(time: Int64, cost: Int)> = []
  private var inWindow = 0

  /// A window of `rate.interval` admitting `rate.permits`.
  public init(rate: Rate) {
    self.rate = rate
  }

  /// The permits per window.
  public var capacity: Int { rate.permits }

  /// For example `sliding-window log: 100 per 10.0 seconds`.
  public var summary: String { "sliding-window log: \(rate)" }

  /// Now, if the window has room; otherwise the instant the oldest admissions leave it and make room.
  public mutating func earliestAdmission(cost: Int, notBefore now: Int64) -> Int64 {
    expire(before: now)
    var overflow = inWindow + cost - rate.permits
    guard overflow > 0 else { return now }
    for entry in log {
      overflow -= entry.cost
      if overflow <= 0 { return entry.time + rate.intervalNanoseconds }
    }
    preconditionFailure("cost \(cost) exceeds capacity \(rate.permits); the limiter checks this first")
  }

  /// Logs the admission.
  public mutating func grant(cost: Int, at time: Int64) {
    expire(before: time)
    log.append((time, cost))
    inWindow += cost
  }

  private mutating func expire(before now: Int64) {
    while let oldest = log.first, oldest.time + rate.intervalNanoseconds <= now {
      inWindow -= oldest.cost
      log.removeFirst()
    }
  }
}

extension QueuedRateLimiter where Policy == SlidingWindowLogPolicy {
  /// A sliding-window log admitting `rate.permits` in any `rate.interval`, on `clock`.
  ///
  /// - Parameters:
  ///   - rate: The permits per window and the window's length.
  ///   - maxQueued: The most callers that may wait at once.
  ///   - clock: The clock to read and sleep on.
  public convenience init(rate: Rate, maxQueued: Int = 1_000, clock: C) {
    self.init(policy: SlidingWindowLogPolicy(rate: rate), maxQueued: maxQueued, clock: clock)
  }
}

extension QueuedRateLimiter where Policy == SlidingWindowLogPolicy, C == ContinuousClock {
  /// A sliding-window log admitting `rate.permits` in any `rate.interval`, on the continuous clock.
  public convenience init(rate: Rate, maxQueued: Int = 1_000) {
    self.init(rate: rate, maxQueued: maxQueued, clock: ContinuousClock())
  }
}
