/// The arithmetic of one rate-limiting algorithm, apart from clocks, waiting and queueing.
///
/// A policy is a small value that answers two questions about time, measured in nanoseconds since its limiter was
/// created: when could a request of a given cost be admitted, and what changes once it is. ``QueuedRateLimiter``
/// does everything else (reading the clock, the fair waiter queue, cancellation, deadlines), so a new algorithm is
/// a new policy and nothing more. Policies never use timers: their state is brought up to date lazily whenever
/// they are asked.
public protocol RateLimitPolicy: Sendable {
  /// The largest cost a single request may ask for; a larger one can never be admitted.
  var capacity: Int { get }

  /// The policy in words, used in errors and logs, for example `token bucket: 5 per 1.0 seconds, burst 5`.
  var summary: String { get }

  /// The earliest time, at or after `now`, at which `cost` permits could be granted if nothing else were granted
  /// first.
  ///
  /// Mutating only so that a policy may drop state that has expired by `now`; it must not grant anything.
  /// - Parameters:
  ///   - cost: The permits asked for, between 1 and ``capacity``.
  ///   - now: Nanoseconds since the limiter was created.
  /// - Returns: A time `>= now`, in the same units.
  mutating func earliestAdmission(cost: Int, notBefore now: Int64) -> Int64

  /// Records that `cost` permits were granted at `time`.
  ///
  /// - Parameters:
  ///   - cost: The permits granted.
  ///   - time: Nanoseconds since the limiter was created; never earlier than a time passed before.
  mutating func grant(cost: Int, at time: Int64)

  /// The longest a request of `cost` may be made to wait before it is refused outright, or `nil` for no such limit.
  ///
  /// A leaky bucket of capacity *n* refuses a request that would have to wait behind *n* permits already in the
  /// bucket; other algorithms leave the bound to the limiter's `maxQueued`.
  func maximumWait(cost: Int) -> Int64?
}

extension RateLimitPolicy {
  /// No bound beyond the limiter's queue: the default for every algorithm but the leaky bucket.
  public func maximumWait(cost: Int) -> Int64? { nil }
}

/// Integer helpers shared by the policies.
enum PolicyMath {
  /// `numerator / denominator`, rounded up, for a positive denominator.
  static func ceilDiv(_ numerator: Int128, _ denominator: Int128) -> Int128 {
    let (quotient, remainder) = numerator.quotientAndRemainder(dividingBy: denominator)
    return remainder > 0 ? quotient + 1 : quotient
  }

  /// A non-negative time in sub-ticks (units of 1/`permits` ns), converted back to nanoseconds, rounded up and
  /// saturating: an admission more than 292 years away is as good as never.
  static func nanoseconds(fromSubticks subticks: Int128, permits: Int) -> Int64 {
    Int64(clamping: ceilDiv(subticks, Int128(permits)))
  }
}
