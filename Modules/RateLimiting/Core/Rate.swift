/// A number of permits per interval of time: `Rate(5, per: .seconds(1))` is five permits a second.
///
/// Every algorithm in this module is configured with a `Rate`; the arithmetic behind it is exact integer arithmetic
/// in nanoseconds, so a rate of three per second spaces permits by exactly one third of a second on average and
/// never drifts faster than the rate.
public struct Rate: Sendable, Hashable, CustomStringConvertible {
  /// How many permits each interval allows.
  public let permits: Int
  /// The length of the interval.
  public let interval: Duration

  /// Creates a rate of `permits` per `interval`.
  ///
  /// - Parameters:
  ///   - permits: How many permits each interval allows; at least 1.
  ///   - interval: The interval; at least one nanosecond.
  /// - Precondition: `permits >= 1`, and `interval` is between one nanosecond and a hundred years. A rate that admits
  ///   nothing is a programming error, not a runtime condition.
  public init(_ permits: Int, per interval: Duration) {
    precondition(permits >= 1, "Rate needs at least one permit per interval, got \(permits)")
    precondition(interval >= .nanoseconds(1), "Rate needs an interval of at least 1 ns, got \(interval)")
    precondition(interval <= Self.longestInterval, "Rate needs an interval of at most 100 years, got \(interval)")
    self.permits = permits
    self.interval = interval
    // Rounded up, so that a fraction of a nanosecond never makes the limiter faster than the rate.
    let nanoseconds = interval.nanoseconds
    intervalNanoseconds = interval > .nanoseconds(nanoseconds) ? nanoseconds + 1 : nanoseconds
  }

  /// Long enough for any real limit, short enough that no arithmetic on it overflows.
  private static let longestInterval = Duration.seconds(100 * 366 * 86_400)

  /// `permits` per second.
  public static func perSecond(_ permits: Int) -> Rate { Rate(permits, per: .seconds(1)) }

  /// `permits` per minute.
  public static func perMinute(_ permits: Int) -> Rate { Rate(permits, per: .seconds(60)) }

  /// For example `5 per 1.0 seconds`.
  public var description: String { "\(permits) per \(interval)" }

  /// The interval in whole nanoseconds, rounded up.
  let intervalNanoseconds: Int64
}

extension Duration {
  /// The duration in whole nanoseconds, rounded toward zero, saturating at the bounds of `Int64` (about 292 years
  /// either way), so that "wait practically forever" is a valid deadline rather than a trap.
  ///
  /// On the fast path of every limiter: `attoseconds` is one 128-bit value divided by a constant, where `components`
  /// costs a full 128-bit division and remainder (about a fifth of a `tryAcquire`, measured).
  var nanoseconds: Int64 {
    if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
      return Int64(clamping: attoseconds / 1_000_000_000)
    }
    let (seconds, attoseconds) = components
    return Int64(clamping: Int128(seconds) * 1_000_000_000 + Int128(attoseconds / 1_000_000_000))
  }
}
