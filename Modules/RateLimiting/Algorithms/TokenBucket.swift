/// A token bucket: holds up to `burst` tokens, refilled continuously at `rate`; a request takes `cost` tokens.
///
/// Allows a burst of up to `burst` requests at once after a quiet spell, and `rate` on average. The bucket starts
/// full.
///
/// ```swift
/// let limiter = TokenBucket(rate: .perSecond(10), burst: 20)
/// try await limiter.acquire()
/// ```
public typealias TokenBucket<C: Clock<Duration>> = QueuedRateLimiter<TokenBucketPolicy, C>

/// The arithmetic of a ``TokenBucket``.
///
/// Tokens are counted exactly in integers: one token is `interval` units of credit, and every nanosecond adds
/// `permits` units.
public struct TokenBucketPolicy: RateLimitPolicy {
  /// The refill rate.
  public let rate: Rate
  /// The most tokens the bucket holds, and so the largest burst and the largest cost.
  public let burst: Int

  private let unitsPerToken: Int128
  private let maximumUnits: Int128
  private var units: Int128
  private var updated: Int64 = 0

  /// A full bucket of `burst` tokens refilled at `rate`.
  ///
  /// - Precondition: `burst >= 1`.
  public init(rate: Rate, burst: Int) {
    precondition(burst >= 1, "A token bucket needs a burst of at least 1, got \(burst)")
    self.rate = rate
    self.burst = burst
    unitsPerToken = Int128(rate.intervalNanoseconds)
    maximumUnits = Int128(burst) * unitsPerToken
    units = maximumUnits
  }

  /// The most permits granted at once: the bucket's size, the burst, which a cost above it can never fit.
  public var capacity: Int { burst }

  /// For example `token bucket: 10 per 1.0 seconds, burst 20`.
  public var summary: String { "token bucket: \(rate), burst \(burst)" }

  /// Now, if the bucket holds `cost` tokens; otherwise when the refill will have brought it there.
  public mutating func earliestAdmission(cost: Int, notBefore now: Int64) -> Int64 {
    let missing = Int128(cost) * unitsPerToken - units(at: now)
    guard missing > 0 else { return now }
    return Int64(clamping: Int128(now) + PolicyMath.ceilDiv(missing, Int128(rate.permits)))
  }

  /// Refills up to `time`, then takes `cost` tokens.
  public mutating func grant(cost: Int, at time: Int64) {
    units = units(at: time) - Int128(cost) * unitsPerToken
    updated = max(updated, time)
  }

  private func units(at time: Int64) -> Int128 {
    let elapsed = Int128(max(0, time - updated))
    return min(maximumUnits, units + elapsed * Int128(rate.permits))
  }
}

extension QueuedRateLimiter where Policy == TokenBucketPolicy {
  /// A token bucket of `burst` tokens refilled at `rate`, on `clock`.
  ///
  /// - Parameters:
  ///   - rate: The refill rate.
  ///   - burst: The most tokens the bucket holds; it starts full.
  ///   - maxQueued: The most callers that may wait at once.
  ///   - clock: The clock to read and sleep on.
  public convenience init(rate: Rate, burst: Int, maxQueued: Int = 1_000, clock: C) {
    self.init(policy: TokenBucketPolicy(rate: rate, burst: burst), maxQueued: maxQueued, clock: clock)
  }
}

extension QueuedRateLimiter where Policy == TokenBucketPolicy, C == ContinuousClock {
  /// A token bucket of `burst` tokens refilled at `rate`, on the continuous clock.
  public convenience init(rate: Rate, burst: Int, maxQueued: Int = 1_000) {
    self.init(rate: rate, burst: burst, maxQueued: maxQueued, clock: ContinuousClock())
  }
}
