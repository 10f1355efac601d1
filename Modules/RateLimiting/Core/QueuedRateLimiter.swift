import KeelConcurrency

/// A ``RateLimiter`` that runs any ``RateLimitPolicy`` on any clock, with a bounded, fair waiter queue.
///
/// You rarely name this type: each algorithm has its own name for it, such as ``TokenBucket``, ``LeakyBucket``,
/// ``FixedWindow``, ``SlidingWindowLog``, ``SlidingWindowCounter`` and ``GCRA``.
///
/// How it waits:
/// - No timers and no polling. The policy's state is computed from the clock when asked.
/// - Callers are admitted in arrival order. Only the first waiter sleeps, once, on the injected clock, to the exact
///   instant the policy says it is due; the others wait until it is their turn.
/// - A waiter is counted when it really goes, so no two admissions are closer than the policy allows, measured here;
///   a stall (a busy machine, a system sleep) never becomes a burst of the callers behind it.
/// - At most `maxQueued` callers wait; one more is refused at once with ``RateLimitError``.
/// - A cancelled waiter leaves at once with `CancellationError`, and the waiter behind it takes its turn.
/// - ``reserve(cost:)`` takes a place in line without waiting, so that calls made in order are admitted in order even
///   when each then waits in a task of its own.
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
  /// - Throws: ``RateLimitError`` (`RateLimitError.Kind.deadlineExceeded` when the admission instant, assuming the
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
    try await sleepAsHead(id: id, until: due)
  }

  /// Joins the queue; returns when this caller is admitted (`nil`) or is the head and must sleep until the instant
  /// returned.
  private func waitForTurn(id: UInt64, cost: Int, deadline: Int64?) async throws -> Int64? {
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        // Checked under the lock, so that a cancellation either comes first or finds this caller in the queue.
        let arrival = locked { queue, policy -> Arrival? in
          if Task.isCancelled { return nil }
          return queue.arrive(
            id: id, cost: cost, now: now(), deadline: deadline, continuation: continuation, policy: &policy)
        }
        switch arrival {
        case nil: continuation.resume(throwing: CancellationError())
        case .admitted: continuation.resume(returning: nil)
        case .refused(let refusal): continuation.resume(throwing: refusalError(refusal))
        case .head(let due): continuation.resume(returning: due)
        case .queued: break
        }
      }
    } onCancel: {
      queue.withLock { $0.removeQueued(id: id) }?.resume(throwing: CancellationError())
    }
  }

  /// Takes a place in line for `cost` permits now, without waiting: calls that reserve in order are admitted in
  /// order, whenever each then waits.
  ///
  /// The place is held until ``RateLimitReservation/wait()`` is awaited (then as ``acquire(cost:)``) or the
  /// reservation is cancelled or released; a head whose owner does not wait holds up the callers behind it, so wait
  /// promptly.
  ///
  /// Never suspends: the place is taken before it returns.
  ///
  /// - Throws: ``RateLimitError`` at once, as ``acquire(cost:)`` would (a full queue, an impossible cost).
  public func reserve(cost: Int) async throws -> any RateLimitReservation {
    if try grantedAtOnce(cost: cost) { return Reservation(limiter: self, id: 0, arrival: .admitted) }
    let id = queue.withLock { $0.nextID() }
    let arrival = locked { queue, policy in
      queue.arrive(id: id, cost: cost, now: now(), deadline: nil, continuation: nil, policy: &policy)
    }
    if case .refused(let refusal) = arrival { throw refusalError(refusal) }
    return Reservation(limiter: self, id: id, arrival: arrival)
  }

  /// A place taken by ``reserve(cost:)``.
  private final class Reservation: RateLimitReservation {
    private let limiter: QueuedRateLimiter
    private let id: UInt64
    /// What happened on arrival, until the owner waits or gives the place up (then `nil`).
    private let arrival: Locked<Arrival?>

    init(limiter: QueuedRateLimiter, id: UInt64, arrival: Arrival) {
      self.limiter = limiter
      self.id = id
      self.arrival = Locked(arrival)
    }

    deinit { cancel() }

    func wait() async throws {
      guard let arrival = take() else {
        preconditionFailure("A rate-limit reservation is waited on once, and not after it was cancelled.")
      }
      try await limiter.waitOnReservation(id: id, arrival: arrival)
    }

    func cancel() {
      if take() != nil { limiter.cancelReservation(id: id) }
    }

    private func take() -> Arrival? {
      arrival.withLock { arrival in
        defer { arrival = nil }
        return arrival
      }
    }
  }

  private func waitOnReservation(id: UInt64, arrival: Arrival) async throws {
    let due: Int64
    switch arrival {
    case .admitted, .refused: return
    case .head(let headDue): due = headDue
    case .queued:
      let turn = try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
          // Checked under the lock, as in `waitForTurn`.
          let resumptions = locked { queue, policy -> [Resumption] in
            guard !Task.isCancelled else {
              return queue.cancelReservation(id: id, now: now(), policy: &policy)
                + [.fail(continuation, CancellationError())]
            }
            return queue.attach(id: id, continuation: continuation).map { [$0] } ?? []
          }
          for resumption in resumptions { resumption.perform() }
        }
      } onCancel: {
        queue.withLock { $0.removeQueued(id: id) }?.resume(throwing: CancellationError())
      }
      guard let turn else { return }
      due = turn
    }
    try await sleepAsHead(id: id, until: due)
  }

  private func cancelReservation(id: UInt64) {
    let resumptions = locked { queue, policy in queue.cancelReservation(id: id, now: now(), policy: &policy) }
    for resumption in resumptions { resumption.perform() }
  }

  /// Sleeps at the head of the queue until `due`, then is granted, or gives the turn back if the sleep is cancelled.
  private func sleepAsHead(id: UInt64, until due: Int64) async throws {
    do {
      try await clock.sleep(untilPreciselyDue: origin.advanced(by: .nanoseconds(due)))
    } catch {
      finishHead(id: id, granted: false)
      throw error
    }
    finishHead(id: id, granted: true)
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
