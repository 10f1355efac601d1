import KeelBasics

/// A ``RateLimiter`` that runs any ``RateLimitPolicy`` on any clock, with a bounded, fair waiter queue.
///
/// You rarely name this type: each algorithm has its own name for it, such as ``TokenBucket``, ``LeakyBucket``,
/// ``FixedWindow``, ``SlidingWindowLog``, ``SlidingWindowCounter`` and ``GCRA``.
///
/// How it waits:
/// - No timers and no polling. The policy's state is computed from the clock when asked.
/// - Callers are admitted in arrival order. Only the first waiter sleeps, once, on the injected clock, to the exact
///   instant the policy says it is due; the others wait until it is their turn.
/// - A waiter that wakes up to 1 ms late is counted at its due instant, so a long queue keeps to its schedule; one
///   that wakes later (a stalled machine, a system sleep) is counted when it goes, so a stall never becomes a burst.
/// - At most `maxQueued` callers wait; one more is refused at once with ``RateLimitError``.
/// - A cancelled waiter leaves at once with `CancellationError`, and the waiter behind it takes its turn.
///
/// ```swift
/// import Clocks
///
/// let clock = TestClock()
/// let limiter = TokenBucket(rate: .perSecond(2), burst: 2, maxQueued: 10, clock: clock)
/// try await limiter.acquire(cost: 2)   // the full burst, at once
/// print(limiter.tryAcquire())          // false: the next permit is due in half a second
/// ```
public final class QueuedRateLimiter<Policy: RateLimitPolicy, C: Clock<Duration>>: RateLimiter {
  /// The clock the limiter reads and sleeps on.
  public let clock: C
  /// The most callers that may wait at once.
  public let maxQueued: Int
  /// The policy's description, for example `token bucket: 5 per 1.0 seconds, burst 5`.
  public let summary: String

  private let capacity: Int
  private let origin: C.Instant
  private let queue: Locked<WaitQueue>
  // Guarded by `queue`'s lock: read and written only inside `locked(_:)`, so neither the compiler's nor the runtime's
  // exclusivity checks are needed. Kept outside `queue` so that its type is not generic; see `WaitQueue`.
  @exclusivity(unchecked) private nonisolated(unsafe) var policy: Policy

  /// Creates a limiter running `policy` on `clock`.
  ///
  /// - Parameters:
  ///   - policy: The algorithm and its parameters.
  ///   - maxQueued: The most callers that may wait at once; `0` means callers are admitted or refused, never queued.
  ///   - clock: The clock to read and sleep on; pass a `TestClock` in tests.
  public init(policy: Policy, maxQueued: Int, clock: C) {
    precondition(maxQueued >= 0, "maxQueued must not be negative, got \(maxQueued)")
    self.clock = clock
    self.maxQueued = maxQueued
    self.summary = policy.summary
    self.capacity = policy.capacity
    self.origin = clock.now
    self.queue = Locked(WaitQueue(maxQueued: maxQueued))
    self.policy = policy
  }

  /// How many callers are waiting right now.
  public var queuedCount: Int { queue.withLock { $0.waiters.count } }

  /// Takes `cost` permits if they are free now and nobody is waiting; never waits.
  ///
  /// - Returns: `false` also for a cost below 1 or above the policy's capacity.
  public func tryAcquire(cost: Int) -> Bool {
    guard cost >= 1, cost <= capacity else { return false }
    return locked { queue, policy in queue.grantNow(cost: cost, now: now(), policy: &policy) }
  }

  /// Waits until `cost` permits are granted. See ``RateLimiter/acquire(cost:)``.
  public func acquire(cost: Int) async throws {
    if try grantedAtOnce(cost: cost) { return }
    try await waitForAdmission(cost: cost, deadline: nil)
  }

  /// Waits at most `maxWait` for `cost` permits. See ``RateLimiter/acquire(cost:maxWait:)``.
  public func acquire(cost: Int, maxWait: Duration) async throws {
    try await acquire(cost: cost, deadline: clock.now.advanced(by: maxWait))
  }

  /// Waits until `cost` permits are granted, or fails at once if that would be after `deadline`.
  ///
  /// - Parameters:
  ///   - cost: How many permits the work uses; at least 1.
  ///   - deadline: The latest instant on this limiter's clock at which the caller is still willing to be admitted.
  /// - Throws: ``RateLimitError`` (``RateLimitError/Kind/deadlineExceeded`` when the admission instant, assuming the
  ///   callers ahead are admitted on time, is after `deadline`), or `CancellationError`.
  public func acquire(cost: Int, deadline: C.Instant) async throws {
    if try grantedAtOnce(cost: cost) { return }
    try await waitForAdmission(cost: cost, deadline: origin.duration(to: deadline).nanoseconds)
  }

  /// The fast path, kept synchronous so that an admitted `acquire` costs no more async frames than its own.
  ///
  /// It does not look at cancellation (that costs ~15% of it); a caller that would have to wait does.
  private func grantedAtOnce(cost: Int) throws -> Bool {
    if cost < 1 { throw RateLimitError.invalidCost(policy: summary, cost: cost) }
    if cost > capacity {
      throw RateLimitError.costExceedsCapacity(policy: summary, cost: cost, capacity: capacity)
    }
    return locked { queue, policy in queue.grantNow(cost: cost, now: now(), policy: &policy) }
  }

  /// The slow path: queue up, and sleep once at the head of the queue.
  private func waitForAdmission(cost: Int, deadline: Int64?) async throws {
    let id = queue.withLock { $0.nextID() }
    guard let due = try await waitForTurn(id: id, cost: cost, deadline: deadline) else { return }
    do {
      try await clock.sleep(untilDue: origin.advanced(by: .nanoseconds(due)))
    } catch {
      finishHead(id: id, granted: false)
      throw error
    }
    finishHead(id: id, granted: true)
  }

  /// Joins the queue; returns when this caller is admitted (`nil`) or is the head and must sleep until the instant
  /// returned.
  private func waitForTurn(id: UInt64, cost: Int, deadline: Int64?) async throws -> Int64? {
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let resumption = locked { queue, policy in
          queue.arrive(
            id: id, cost: cost, now: now(), deadline: deadline, continuation: continuation, policy: &policy,
            error: refusalError)
        }
        resumption?.perform()
      }
    } onCancel: {
      queue.withLock { $0.removeQueued(id: id) }?.resume(throwing: CancellationError())
    }
  }

  private func finishHead(id: UInt64, granted: Bool) {
    let resumptions = locked { queue, policy in
      queue.finishHead(id: id, granted: granted, now: now(), policy: &policy)
    }
    for resumption in resumptions { resumption.perform() }
  }

  private func refusalError(_ refusal: Refusal) -> RateLimitError {
    switch refusal {
    case .queueFull: .queueFull(policy: summary, maxQueued: maxQueued)
    case .bucketFull(let wait): .bucketFull(policy: summary, wait: .nanoseconds(wait))
    case .deadline(let wait): .deadlineExceeded(policy: summary, wait: .nanoseconds(wait))
    }
  }

  /// Runs `body` with the lock held, on the queue and the policy it guards.
  ///
  /// Always inlined, so that `withLock` is specialized for the caller's result type even in unspecialized code.
  @inline(__always)
  private func locked<Result>(_ body: (inout WaitQueue, inout Policy) -> Result) -> Result {
    queue.withLock { queue in body(&queue, &policy) }
  }

  /// Nanoseconds since the limiter was created. Read under the lock, so that grants are recorded in time order.
  private func now() -> Int64 { origin.duration(to: clock.now).nanoseconds }
}
