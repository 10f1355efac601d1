/// A leaky bucket used as a shaper: requests leave at a constant pace, exactly `interval / permits` apart, and a
/// bucket of `capacity` holds the ones not yet gone.
///
/// No bursts: even after a quiet spell, two requests are spaced by a full emission interval. A request that would
/// overflow the bucket, that is, one that finds `capacity` permits already in it, is refused at once with
/// `RateLimitError.Kind.queueFull`. The request admitted at this instant still counts as in the bucket until its
/// interval has drained.
///
/// ```swift
/// let limiter = LeakyBucket(rate: .perSecond(1), capacity: 10)
/// // 11 calls at once: admitted at 0, 1, …, 9 s; the 11th refused at once.
/// ```
public typealias LeakyBucket<C: Clock<Duration>> = QueuedRateLimiter<LeakyBucketPolicy, C>

/// The arithmetic of a ``LeakyBucket``.
///
/// Times are kept in sub-ticks of 1/`permits` nanosecond, so the spacing is exact for any rate.
public struct LeakyBucketPolicy: RateLimitPolicy {
  /// The pace at which requests leave.
  public let rate: Rate
  /// How many permits the bucket holds, counting the one leaving now.
  public let capacity: Int

  private let spacing: Int128
  private var nextFree: Int128 = 0

  /// A bucket of `capacity` permits drained at `rate`.
  ///
  /// - Precondition: `capacity >= 1`.
  public init(rate: Rate, capacity: Int) {
    precondition(capacity >= 1, "A leaky bucket needs a capacity of at least 1, got \(capacity)")
    self.rate = rate
    self.capacity = capacity
    spacing = Int128(rate.intervalNanoseconds)
  }

  /// For example `leaky bucket: 1 per 1.0 seconds, capacity 10`.
  public var summary: String { "leaky bucket: \(rate), capacity \(capacity)" }

  /// Now, or when the permits ahead have drained.
  public mutating func earliestAdmission(cost: Int, notBefore now: Int64) -> Int64 {
    let nowSubticks = Int128(now) * Int128(rate.permits)
    guard nextFree > nowSubticks else { return now }
    return PolicyMath.nanoseconds(fromSubticks: nextFree, permits: rate.permits)
  }

  /// The next request may leave `cost` spacings after this one.
  public mutating func grant(cost: Int, at time: Int64) {
    let timeSubticks = Int128(time) * Int128(rate.permits)
    nextFree = max(nextFree, timeSubticks) + Int128(cost) * spacing
  }

  /// The time for `capacity - cost` permits to drain: a longer wait means the bucket would overflow.
  public func maximumWait(cost: Int) -> Int64? {
    PolicyMath.nanoseconds(fromSubticks: Int128(capacity - cost) * spacing, permits: rate.permits)
  }
}

extension QueuedRateLimiter where Policy == LeakyBucketPolicy {
  /// A leaky bucket of `capacity` permits drained at `rate`, on `clock`.
  ///
  /// - Parameters:
  ///   - rate: The pace at which requests leave.
  ///   - capacity: How many permits the bucket holds, counting the one leaving now.
  ///   - clock: The clock to read and sleep on.
  public convenience init(rate: Rate, capacity: Int, clock: C) {
    // The bucket itself bounds the queue: it never holds more than `capacity` waiters.
    self.init(policy: LeakyBucketPolicy(rate: rate, capacity: capacity), maxQueued: capacity, clock: clock)
  }
}

extension QueuedRateLimiter where Policy == LeakyBucketPolicy, C == ContinuousClock {
  /// A leaky bucket of `capacity` permits drained at `rate`, on the continuous clock.
  public convenience init(rate: Rate, capacity: Int) {
    self.init(rate: rate, capacity: capacity, clock: ContinuousClock())
  }
}
