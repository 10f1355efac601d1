/// Something that admits work at a bounded rate.
///
/// `acquire` waits until the caller is admitted; `tryAcquire` answers at once. Implementations are safe to call
/// from any task or thread. Waiting is fair: callers are admitted in the order they arrived, and `tryAcquire`
/// never jumps ahead of a caller that is already waiting.
///
/// ```swift
/// let limiter = TokenBucket(rate: .perSecond(5), burst: 5)
/// try await limiter.acquire()          // waits for a permit
/// if limiter.tryAcquire() {            // takes one only if free now
///   // …
/// }
/// ```
public protocol RateLimiter: Sendable {
  /// Waits until `cost` permits are granted.
  ///
  /// - Parameter cost: How many permits the work uses; at least 1.
  /// - Throws: ``RateLimitError`` at once if the request can never be admitted or no waiting place is free;
  ///   `CancellationError` promptly if the calling task is cancelled while waiting, in which case the caller's
  ///   place in line and its share of the rate go to the callers behind it. A cancelled task that would have to
  ///   wait is refused with `CancellationError` at once; one whose permits are free right now is admitted, like any
  ///   other call that completes without suspending.
  func acquire(cost: Int) async throws

  /// Waits until `cost` permits are granted, or fails at once if that would take longer than `maxWait`.
  ///
  /// - Parameters:
  ///   - cost: How many permits the work uses; at least 1.
  ///   - maxWait: The longest the caller is willing to wait.
  /// - Throws: ``RateLimitError`` of kind ``RateLimitError/Kind/deadlineExceeded`` without waiting when the
  ///   admission instant, assuming the callers ahead are admitted on time, is further away than `maxWait`; otherwise
  ///   as ``acquire(cost:)``.
  func acquire(cost: Int, maxWait: Duration) async throws

  /// Takes `cost` permits if they are free right now and nobody is waiting; never waits.
  ///
  /// - Parameter cost: How many permits the work uses.
  /// - Returns: `true` if the permits were taken.
  func tryAcquire(cost: Int) -> Bool
}

// Inlinable so that the one-permit spellings cost callers no extra (async) call frame.
extension RateLimiter {
  /// Waits until one permit is granted. See ``acquire(cost:)``.
  @inlinable
  public func acquire() async throws { try await acquire(cost: 1) }

  /// Takes one permit if it is free right now and nobody is waiting. See ``tryAcquire(cost:)``.
  @inlinable
  public func tryAcquire() -> Bool { tryAcquire(cost: 1) }
}
