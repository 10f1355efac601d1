import KeelConcurrency

/// A GCRA limiter whose state lives in a ``GCRAStore``, so that every process using the same store and key shares
/// one limit (REQUIREMENTS L2).
///
/// - One atomic step per admission: the store reserves the slot and moves the theoretical arrival time in one go, on
///   its own clock (a database's clock is then the one clock of the fleet); the caller sleeps until the slot on its
///   own clock.
/// - The queue is bounded: a request whose slot is more than `maxQueued` intervals away is refused at once with
///   `RateLimitError.Kind.queueFull`, nothing reserved.
/// - A caller cancelled while it waits gives its slot back when nobody reserved after it; otherwise its slot goes
///   unused, so that the callers behind keep theirs and the limit is never exceeded. A process that dies while it
///   waits holds up the others by its own slot, no more.
/// - A store that cannot be used is `RateLimitError.Kind.storeUnavailable` by default, nothing sent: falling back to
///   a limiter of this process would multiply the limit by the number of processes, the very thing the store
///   prevents. ``Fallback/local(_:)`` chooses that anyway, for a limit that is a courtesy rather than a contract.
///
/// ```swift
/// let clock = ContinuousClock()
/// let limiter = SharedRateLimiter(
///   key: "api.example.com/app-1", rate: .perSecond(1), maxQueued: 9, store: InMemoryGCRAStore(clock: clock),
///   clock: clock)
/// try await limiter.acquire()
/// ```
public final class SharedRateLimiter<C: Clock<Duration>>: RateLimiter {
  /// What to do when the store cannot be used.
  public enum Fallback: Sendable {
    /// Refuse the request with `RateLimitError.Kind.storeUnavailable`: nothing is sent.
    case refuse
    /// Admit through `limiter`, a limiter of this process alone, and log why.
    case local(any RateLimiter)
  }

  /// The key the limit is kept under in the store.
  public let key: String
  /// The policy in words, for example `shared GCRA (api.example.com/app-1): 1 per 1.0 seconds, burst 1, 9 queued`.
  public let summary: String
  /// The most callers that may wait, beyond the burst.
  public let maxQueued: Int

  private let store: any GCRAStore
  private let clock: C
  private let rate: Rate
  private let burst: Int
  private let fallback: Fallback
  private let onFallback: @Sendable (any Error) -> Void

  /// A limiter of `rate` with bursts of `burst`, kept in `store` under `key`.
  ///
  /// - Parameters:
  ///   - key: What the limit is kept under; every process sharing the limit uses the same.
  ///   - rate: The sustained rate; its interval is kept to the microsecond.
  ///   - burst: How many may go back to back after a quiet spell.
  ///   - maxQueued: How many may wait beyond the burst: a request whose slot is further than `maxQueued` intervals
  ///     away is refused. The user manager's policy (one a second, ten in the bucket) is burst 1, `maxQueued` 9.
  ///   - store: Where the state lives.
  ///   - clock: What the wait is slept on.
  ///   - fallback: What to do when the store cannot be used; ``Fallback/refuse`` by default.
  ///   - onFallback: Told each time the fallback is used, with the store's error (to log it).
  public init(
    key: String, rate: Rate, burst: Int = 1, maxQueued: Int, store: any GCRAStore, clock: C,
    fallback: Fallback = .refuse, onFallback: @escaping @Sendable (any Error) -> Void = { _ in }
  ) {
    precondition(burst >= 1 && maxQueued >= 0, "a shared limiter needs burst >= 1 and maxQueued >= 0")
    precondition(
      rate.intervalNanoseconds >= 1_000 * Int64(rate.permits), "a shared limiter's interval is at least 1 µs")
    self.key = key
    self.rate = rate
    self.burst = burst
    self.maxQueued = maxQueued
    self.store = store
    self.clock = clock
    self.fallback = fallback
    self.onFallback = onFallback
    summary = "shared GCRA (\(key)): \(rate), burst \(burst), \(maxQueued) queued"
  }

  /// Reserves a slot in the store and waits for it. See ``RateLimiter/acquire(cost:)``.
  public func acquire(cost: Int) async throws {
    try await reserve(cost: cost, maxWait: nil).wait()
  }

  /// Reserves a slot no further than `maxWait` away and waits for it. See ``RateLimiter/acquire(cost:maxWait:)``.
  public func acquire(cost: Int, maxWait: Duration) async throws {
    try await reserve(cost: cost, maxWait: maxWait).wait()
  }

  /// Always `false`: the store answers asynchronously, so nothing is admitted without asking it. Use
  /// `acquire(cost:maxWait: .zero)` to take a permit only if it is free now.
  public func tryAcquire(cost: Int) -> Bool { false }

  /// Reserves a slot in the store now; the reservation sleeps until it when waited on. See
  /// ``RateLimiter/reserve(cost:)``.
  public func reserve(cost: Int) async throws -> any RateLimitReservation {
    try await reserve(cost: cost, maxWait: nil)
  }

  private func reserve(cost: Int, maxWait: Duration?) async throws -> any RateLimitReservation {
    if cost < 1 { throw RateLimitError.invalidCost(policy: summary, cost: cost) }
    if cost > burst { throw RateLimitError.costExceedsCapacity(policy: summary, cost: cost, capacity: burst) }
    try Task.checkCancellation()
    let interval = rate.intervalNanoseconds / Int64(rate.permits) / 1_000
    let bound = Int64(maxQueued) * interval
    let step = GCRAStep(
      interval: interval, burst: burst, cost: cost,
      maxWait: maxWait.map { min(bound, max(0, $0.wholeMicroseconds)) } ?? bound)
    let reservation: GCRAReservation?
    do {
      reservation = try await store.reserve(key: key, step: step)
    } catch is CancellationError {
      throw CancellationError()
    } catch {
      switch fallback {
      case .refuse:
        throw RateLimitError.storeUnavailable(policy: summary, reason: "\(error)")
      case .local(let limiter):
        onFallback(error)
        return try await limiter.reserve(cost: cost)
      }
    }
    guard let reservation else {
      if maxWait != nil, step.maxWait < bound {
        throw RateLimitError.deadlineExceeded(policy: summary, wait: maxWait ?? .zero)
      }
      throw RateLimitError.queueFull(policy: summary, maxQueued: maxQueued)
    }
    return Slot(limiter: self, reservation: reservation, step: step, deadline: clock.now.advanced(by: reservation.wait))
  }

  /// A reserved slot: sleeps until it; gives it back when cancelled first.
  private final class Slot: RateLimitReservation {
    private let limiter: SharedRateLimiter
    private let reservation: GCRAReservation
    private let step: GCRAStep
    private let deadline: C.Instant
    private let state = Locked(State.reserved)

    private enum State { case reserved, waiting, done }

    init(limiter: SharedRateLimiter, reservation: GCRAReservation, step: GCRAStep, deadline: C.Instant) {
      self.limiter = limiter
      self.reservation = reservation
      self.step = step
      self.deadline = deadline
    }

    deinit {
      if state.withLock({ $0 }) == .reserved { giveBack() }
    }

    func wait() async throws {
      let first = state.withLock { state in
        defer { state = .waiting }
        return state == .reserved
      }
      precondition(first, "A rate-limit reservation is waited on once, and not after it was cancelled.")
      do {
        try await limiter.clock.sleep(untilDue: deadline)
        state.withLock { $0 = .done }
      } catch {
        state.withLock { $0 = .done }
        giveBack()
        throw error
      }
    }

    func cancel() {
      let reserved = state.withLock { state in
        defer { state = .done }
        return state == .reserved
      }
      if reserved { giveBack() }
    }

    /// Gives the slot back in the background: the caller has stopped waiting, and a store that cannot be reached now
    /// only means the slot goes unused.
    private func giveBack() {
      guard reservation.wait > .zero else { return }  // its slot has come: the permit is as good as spent
      let (store, key, reservation, step) = (limiter.store, limiter.key, reservation, step)
      Task { try? await store.release(key: key, reservation: reservation, step: step) }
    }
  }
}

extension Duration {
  /// The duration in whole microseconds, rounded down.
  fileprivate var wholeMicroseconds: Int64 {
    components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
  }
}
