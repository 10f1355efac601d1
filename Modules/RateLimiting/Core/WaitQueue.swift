import DequeModule

/// The callers waiting their turn at a ``QueuedRateLimiter``, and the rules by which they are admitted.
///
/// Lives inside the limiter's lock; every method runs with the lock held and is handed the policy the same lock
/// guards. Only the first waiter (the head) ever sleeps, and only to the instant its policy says it is due; the ones
/// behind it wait on continuations and are promoted one at a time. Nothing is granted to anyone else while anyone
/// waits, so the head's due instant stays valid until it wakes.
///
/// Deliberately not generic: the methods are generic over the policy instead, so that a limiter called through
/// `any RateLimiter` (unspecialized code) instantiates no generic type metadata on its fast path.
struct WaitQueue {
  /// How late a head may wake and still be counted at its due instant (1 ms).
  ///
  /// Counting an on-time head at its due instant keeps a long queue on schedule: otherwise every wake-up's latency
  /// (about 0.15 ms each, measured on Linux) would add up down the queue. A head that wakes later than this (a busy
  /// machine, a system sleep) is counted when it really goes, so that the stall cannot turn into a burst of the
  /// callers behind it, faster than the rate.
  static let onTimeTolerance: Int64 = 1_000_000

  let maxQueued: Int
  private(set) var waiters: Deque<Waiter> = []
  private var lastID: UInt64 = 0

  init(maxQueued: Int) {
    self.maxQueued = maxQueued
  }

  /// Grants `cost` at `now` if nobody waits and the policy admits it now: the fast path shared by every entry.
  func grantNow<Policy: RateLimitPolicy>(cost: Int, now: Int64, policy: inout Policy) -> Bool {
    guard waiters.isEmpty, policy.earliestAdmission(cost: cost, notBefore: now) <= now else { return false }
    policy.grant(cost: cost, at: now)
    return true
  }

  /// A fresh waiter id.
  mutating func nextID() -> UInt64 {
    lastID &+= 1
    return lastID
  }

  /// Decides what happens to a caller that arrives at `now` and did not get the fast path.
  ///
  /// - Returns: how to resume `continuation`, or `nil` when it joined the queue behind the head.
  mutating func arrive<Policy: RateLimitPolicy>(
    id: UInt64, cost: Int, now: Int64, deadline: Int64?, continuation: Waiter.Continuation, policy: inout Policy,
    error: (Refusal) -> RateLimitError
  ) -> Resumption? {
    if Task.isCancelled { return .fail(continuation, CancellationError()) }
    if grantNow(cost: cost, now: now, policy: &policy) { return .admit(continuation) }
    guard waiters.count < maxQueued else { return .fail(continuation, error(.queueFull)) }

    let bound = policy.maximumWait(cost: cost)
    if bound != nil || deadline != nil {
      let due = predictedAdmission(cost: cost, now: now, policy: policy)
      if let bound, due - now > bound { return .fail(continuation, error(.bucketFull(wait: due - now))) }
      if let deadline, due > deadline { return .fail(continuation, error(.deadline(wait: due - now))) }
    }
    if waiters.isEmpty {
      let due = policy.earliestAdmission(cost: cost, notBefore: now)
      waiters.append(Waiter(id: id, cost: cost, phase: .head(due: due)))
      return .sleep(continuation, until: due)
    }
    waiters.append(Waiter(id: id, cost: cost, phase: .queued(continuation)))
    return nil
  }

  /// Removes a waiter that is still queued behind the head (it was cancelled).
  ///
  /// - Returns: its continuation, to be resumed with `CancellationError`, or `nil` if it had already been promoted.
  mutating func removeQueued(id: UInt64) -> Waiter.Continuation? {
    guard let index = waiters.firstIndex(where: { $0.id == id }),
      case .queued(let continuation) = waiters[index].phase
    else { return nil }
    waiters.remove(at: index)
    return continuation
  }

  /// The head woke (`granted`) or was cancelled: grants it now or gives its turn back, then promotes the callers
  /// behind it.
  mutating func finishHead<Policy: RateLimitPolicy>(
    id: UInt64, granted: Bool, now: Int64, policy: inout Policy
  ) -> [Resumption] {
    guard let head = waiters.first, head.id == id, case .head(let due) = head.phase else { return [] }
    waiters.removeFirst()
    if granted { policy.grant(cost: head.cost, at: now - due <= Self.onTimeTolerance ? due : now) }
    return promote(now: now, policy: &policy)
  }

  /// Admits every waiter at the front that is due by `now`, and makes the next one the sleeping head.
  private mutating func promote<Policy: RateLimitPolicy>(now: Int64, policy: inout Policy) -> [Resumption] {
    var resumptions: [Resumption] = []
    while let next = waiters.first, case .queued(let continuation) = next.phase {
      let due = policy.earliestAdmission(cost: next.cost, notBefore: now)
      if due <= now {
        policy.grant(cost: next.cost, at: now)
        waiters.removeFirst()
        resumptions.append(.admit(continuation))
      } else {
        waiters[waiters.startIndex].phase = .head(due: due)
        resumptions.append(.sleep(continuation, until: due))
        break
      }
    }
    return resumptions
  }

  /// When a caller of `cost` arriving at `now` would be admitted, assuming everyone ahead is admitted on time.
  ///
  /// Runs the queue forward on a copy of the policy: O(waiters), and only needed for deadlines and leaky buckets.
  private func predictedAdmission<Policy: RateLimitPolicy>(cost: Int, now: Int64, policy: Policy) -> Int64 {
    var policy = policy
    var time = now
    for waiter in waiters {
      switch waiter.phase {
      case .head(let due): time = max(due, time)
      case .queued: time = policy.earliestAdmission(cost: waiter.cost, notBefore: time)
      }
      policy.grant(cost: waiter.cost, at: time)
    }
    return policy.earliestAdmission(cost: cost, notBefore: time)
  }
}

/// Why ``WaitQueue/arrive(id:cost:now:deadline:continuation:error:)`` refused a caller; the limiter turns it into
/// a ``RateLimitError`` with its own description.
enum Refusal {
  case queueFull
  case bucketFull(wait: Int64)
  case deadline(wait: Int64)
}

/// One caller waiting at a ``QueuedRateLimiter``.
struct Waiter {
  typealias Continuation = CheckedContinuation<Int64?, any Error>

  enum Phase {
    /// Behind the head, suspended until promoted.
    case queued(Continuation)
    /// At the head, sleeping until `due`.
    case head(due: Int64)
  }

  let id: UInt64
  let cost: Int
  var phase: Phase
}

/// What to do with a waiter's continuation once the lock is released.
enum Resumption {
  case admit(Waiter.Continuation)
  case sleep(Waiter.Continuation, until: Int64)
  case fail(Waiter.Continuation, any Error)

  func perform() {
    switch self {
    case .admit(let continuation): continuation.resume(returning: nil)
    case .sleep(let continuation, let due): continuation.resume(returning: due)
    case .fail(let continuation, let error): continuation.resume(throwing: error)
    }
  }
}
