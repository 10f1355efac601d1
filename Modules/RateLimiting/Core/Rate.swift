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
  /// - Precondition: `permits >= 1` and `interval` is at least one nanosecond. A rate that admits nothing is a
  ///   programming error, not a runtime condition.
  public init(_ permits: Int, per interval: Duration) {
    precondition(permits >= 1, "Rate needs at least one permit per interval, got \(permits)")
    precondition(interval >= .nanoseconds(1), "Rate needs an interval of at least 1 ns, got \(interval)")
    self.permits = permits
    self.interval = interval
  }

  /// `permits` per second.
  public static func perSecond(_ permits: Int) -> Rate { Rate(permits, per: .seconds(1)) }

  /// `permits` per minute.
  public static func perMinute(_ permits: Int) -> Rate { Rate(permits, per: .seconds(60)) }

  /// For example `5 per 1.0 seconds`.
  public var description: String { "\(permits) per \(interval)" }

  /// The interval in whole nanoseconds.
  var intervalNanoseconds: Int64 { interval.nanoseconds }
}

extension Duration {
  /// The duration in whole nanoseconds, rounded toward zero.
  var nanoseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }
}
