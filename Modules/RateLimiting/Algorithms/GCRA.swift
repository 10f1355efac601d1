/// The generic cell rate algorithm: the token bucket's admissions, kept as one number.
///
/// GCRA remembers only the theoretical arrival time (TAT) of the next request; a request is admitted when it would
/// not push the TAT more than `burst` emission intervals ahead of now. It admits exactly what a ``TokenBucket``
/// with the same rate and burst admits, in less state, which is why it is the usual choice for limits kept per
/// key in a store.
///
/// ```swift
/// let limiter = GCRA(rate: .perSecond(100), burst: 10)
/// ```
public typealias GCRA<C: Clock<Duration>> = QueuedRateLimiter<GCRAPolicy, C>

/// The arithmetic of ``GCRA``.
///
/// Times are kept in sub-ticks of 1/`permits` nanosecond, so the emission interval (`interval / permits`) is an
/// exact integer.
public struct GCRAPolicy: RateLimitPolicy {
  /// The sustained rate.
  public let rate: Rate
  /// How many requests may arrive back to back after a quiet spell.
  public let burst: Int

  private let emissionInterval: Int128
  private var theoreticalArrival: Int128 = 0

  /// GCRA at `rate` tolerating bursts of `burst`.
  ///
  /// - Precondition: `burst >= 1`.
  public init(rate: Rate, burst: Int) {
    precondition(burst >= 1, "GCRA needs a burst of at least 1, got \(burst)")
    self.rate = rate
    self.burst = burst
    emissionInterval = Int128(rate.intervalNanoseconds)
  }

  /// The most permits granted at once: the burst, which a cost above it can never fit.
  public var capacity: Int { burst }

  /// For example `GCRA: 100 per 1.0 seconds, burst 10`.
  public var summary: String { "GCRA: \(rate), burst \(burst)" }

  /// Now, or the instant at which the TAT, pushed by `cost` intervals, is no more than `burst` intervals ahead.
  public mutating func earliestAdmission(cost: Int, notBefore now: Int64) -> Int64 {
    let nowSubticks = Int128(now) * Int128(rate.permits)
    let allowedAt = theoreticalArrival + Int128(cost - burst) * emissionInterval
    guard allowedAt > nowSubticks else { return now }
    return PolicyMath.nanoseconds(fromSubticks: allowedAt, permits: rate.permits)
  }

  /// Moves the TAT forward by `cost` emission intervals from `time` or from itself, whichever is later.
  public mutating func grant(cost: Int, at time: Int64) {
    let timeSubticks = Int128(time) * Int128(rate.permits)
    theoreticalArrival = max(theoreticalArrival, timeSubticks) + Int128(cost) * emissionInterval
  }
}

extension QueuedRateLimiter where Policy == GCRAPolicy {
  /// GCRA at `rate` tolerating bursts of `burst`, on `clock`.
  ///
  /// - Parameters:
  ///   - rate: The sustained rate.
  ///   - burst: How many requests may arrive back to back after a quiet spell.
  ///   - maxQueued: The most callers that may wait at once.
  ///   - clock: The clock to read and sleep on.
  public convenience init(rate: Rate, burst: Int, maxQueued: Int = 1_000, clock: C) {
    self.init(policy: GCRAPolicy(rate: rate, burst: burst), maxQueued: maxQueued, clock: clock)
  }
}

extension QueuedRateLimiter where Policy == GCRAPolicy, C == ContinuousClock {
  /// GCRA at `rate` tolerating bursts of `burst`, on the continuous clock.
  public convenience init(rate: Rate, burst: Int, maxQueued: Int = 1_000) {
    self.init(rate: rate, burst: burst, maxQueued: maxQueued, clock: ContinuousClock())
  }
}
