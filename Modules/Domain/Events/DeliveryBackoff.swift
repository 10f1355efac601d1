import Foundation

/// How long a failed upload waits (REQUIREMENTS E4): exponential with full jitter, capped, unless the server asked
/// for longer.
enum DeliveryBackoff {
  /// The longest wait a server's `Retry-After` is honoured for: beyond it the server is probably wrong.
  static let longestRetryAfter: Duration = .seconds(3_600)

  /// The wait before attempt `attempt + 1`: a random share (`random` in `0..<1`) of `base × 2^(attempt − 1)`, at most
  /// `max`; or the server's `retryAfter` when it is longer (up to an hour).
  static func delay(attempt: Int, base: Duration, max cap: Duration, retryAfter: Duration?, random: Double) -> Duration
  {
    let exponent = Swift.min(Swift.max(attempt - 1, 0), 30)
    let ceiling = Swift.min(cap, base * (1 << exponent))
    let jittered = ceiling * Swift.min(Swift.max(random, 0), 1)
    guard let retryAfter else { return jittered }
    return Swift.max(jittered, Swift.min(retryAfter, longestRetryAfter))
  }

  /// `duration` in seconds.
  static func seconds(_ duration: Duration) -> TimeInterval {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
