@_exported import KeelErrors

/// Why a rate limiter refused a request instead of admitting it.
///
/// A struct rather than an enum so that new reasons can be added without breaking anyone's `switch`. Compare
/// ``kind`` to tell the reasons apart; ``description`` is a complete sentence for logs and users.
///
/// ```swift
/// let limiter = LeakyBucket(rate: .perSecond(1), capacity: 10)
/// do {
///   try await limiter.acquire()
/// } catch let error as RateLimitError where error.kind == .queueFull {
///   // shed the request
/// }
/// ```
public struct RateLimitError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The kind of refusal.
  public typealias Kind = ErrorKind<RateLimitError>

  /// The kind of refusal.
  public let kind: Kind
  /// The limiter's policy in words, for example `leaky bucket: 1 per 1.0 seconds, capacity 10`.
  public let policy: String
  /// A complete sentence saying what was refused and why.
  public let description: String

  /// Every one of the `maxQueued` waiting places of `policy` is taken: for limiters outside this module that keep
  /// the same bound.
  public static func queueFull(policy: String, maxQueued: Int) -> RateLimitError {
    RateLimitError(
      kind: .queueFull, policy: policy,
      description: "Rate limit (\(policy)): the queue of \(maxQueued) waiting requests is full; request refused."
    )
  }

  static func bucketFull(policy: String, wait: Duration) -> RateLimitError {
    RateLimitError(
      kind: .queueFull, policy: policy,
      description: "Rate limit (\(policy)): the bucket is full (admission would be \(wait) away); request refused."
    )
  }

  static func deadlineExceeded(policy: String, wait: Duration) -> RateLimitError {
    RateLimitError(
      kind: .deadlineExceeded, policy: policy,
      description: "Rate limit (\(policy)): admission would be \(wait) away, past the caller's deadline."
    )
  }

  static func costExceedsCapacity(policy: String, cost: Int, capacity: Int) -> RateLimitError {
    RateLimitError(
      kind: .costExceedsCapacity, policy: policy,
      description: "Rate limit (\(policy)): a cost of \(cost) can never be admitted; the most at once is \(capacity)."
    )
  }

  static func invalidCost(policy: String, cost: Int) -> RateLimitError {
    RateLimitError(
      kind: .invalidCost, policy: policy,
      description: "Rate limit (\(policy)): cost must be at least 1, got \(cost)."
    )
  }

  /// The shared store that keeps the limit of `policy` could not be used; `reason` says why, in a sentence.
  public static func storeUnavailable(policy: String, reason: String) -> RateLimitError {
    RateLimitError(
      kind: .storeUnavailable, policy: policy,
      description: "Rate limit (\(policy)): its shared store could not be used (\(reason.clause)); request refused."
    )
  }
}

extension ErrorKind where Owner == RateLimitError {
  /// Every waiting place was taken, or the leaky bucket was full; the request was refused at once.
  public static var queueFull: Self { Self("queueFull") }
  /// The request would have been admitted only after the caller's deadline, so it was refused at once.
  public static var deadlineExceeded: Self { Self("deadlineExceeded") }
  /// The request asked for more permits than the limiter can ever grant at one time.
  public static var costExceedsCapacity: Self { Self("costExceedsCapacity") }
  /// The request asked for a cost below one.
  public static var invalidCost: Self { Self("invalidCost") }
  /// The limit is kept in a shared store (a database) that could not be used, so nothing was admitted.
  public static var storeUnavailable: Self { Self("storeUnavailable") }
}
