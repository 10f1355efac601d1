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
  /// - Throws: ``RateLimitError`` of kind `RateLimitError.Kind.deadlineExceeded` without waiting when the
  ///   admission instant, assuming the callers ahead are admitted on time, is further away than `maxWait`; otherwise
  ///   as ``acquire(cost:)``.
  func acquire(cost: Int, maxWait: Duration) async throws

  /// Takes `cost` permits if they are free right now and nobody is waiting; never waits.
  ///
  /// - Parameter cost: How many permits the work uses.
  /// - Returns: `true` if the permits were taken.
  func tryAcquire(cost: Int) -> Bool

  /// Takes a place in line for `cost` permits now, to be waited on later: calls that reserve in order are admitted
  /// in order, even when each then waits in a task of its own.
  ///
  /// A limiter that cannot hold a place without a waiting caller keeps the default, which takes the place only
  /// when ``RateLimitReservation/wait()`` is awaited.
  ///
  /// - Throws: ``RateLimitError`` at once when the request can never be admitted or no waiting place is free.
  func reserve(cost: Int) async throws -> any RateLimitReservation
}

/// A place in a rate limiter's line, taken by ``RateLimiter/reserve(cost:)``.
///
/// Wait on it once, or cancel it; a reservation that is released without either gives its place up.
///
/// ```swift
/// let limiter = LeakyBucket(rate: .perSecond(1), capacity: 10)
/// let place = try await limiter.reserve(cost: 1)   // in line now, in call order
/// Task { try await place.wait() }                  // admitted at its turn
/// ```
public protocol RateLimitReservation: Sendable {
  /// Waits until the place's turn comes.
  ///
  /// - Throws: `CancellationError` if the calling task is cancelled while waiting (the place goes to the callers
  ///   behind), or what the limiter's `acquire(cost:)` throws.
  func wait() async throws

  /// Gives the place up without waiting; a permit already granted to it stays spent.
  func cancel()
}

// Inlinable so that the one-permit spellings cost callers no extra (async) call frame.
extension RateLimiter {
  /// Waits until one permit is granted. See ``acquire(cost:)``.
  @inlinable
  public func acquire() async throws { try await acquire(cost: 1) }

  /// Takes one permit if it is free right now and nobody is waiting. See ``tryAcquire(cost:)``.
  @inlinable
  public func tryAcquire() -> Bool { tryAcquire(cost: 1) }

  /// A reservation that takes its place only when waited on: for limiters that cannot hold one sooner.
  public func reserve(cost: Int) async throws -> any RateLimitReservation {
    DeferredReservation(limiter: self, cost: cost)
  }
}

/// The default ``RateLimitReservation``: `acquire(cost:)` when waited on.
private struct DeferredReservation<Limiter: RateLimiter>: RateLimitReservation {
  let limiter: Limiter
  let cost: Int

  func wait() async throws { try await limiter.acquire(cost: cost) }

  func cancel() {}
}
