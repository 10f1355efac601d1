import DequeModule

/// The mutable state of a ``QueuedRateLimiter``: its policy and the callers waiting their turn.
///
/// Lives inside the limiter's `Mutex`; every method runs with the lock held. Only the first waiter (the head) ever
/// sleeps, and only to the instant its policy says it is due; the ones behind it wait on continuations and are
/// promoted one at a time. Nothing is granted to anyone else while anyone waits, so the head's due instant stays
/// valid until it wakes.
struct WaitQueue<Policy: RateLimitPolicy> {
  typealias Continuation = CheckedContinuation<Int64?, any Error>

  /// One waiting caller.
  struct Waiter {
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

  /// What to do with a continuation once the lock is released.
  enum Resumption {
    case admit(Continuation)
    case sleep(Continuation, until: Int64)
    case fail(Continuation, any Error)

    func perform() {
      switch self {
      case .admit(let continuation): continuation.resume(returning: nil)
      case .sleep(let continuation, let due): continuation.resume(returning: due)
      case .fail(let continuation, let error): continuation.resume(throwing: error)
      }
    }
  }

  var policy: Policy
  let maxQueued: Int
  private(set) var waiters: Deque<Waiter> = []
  private var lastID: UInt64 = 0

  init(policy: Policy, maxQueued: Int) {
    self.policy = policy
    self.maxQueued = maxQueued
  }

  /// Grants `cost` at `now` if nobody waits and the policy admits it now: the fast path shared by every entry.
  mutating func grantNow(cost: Int, now: Int64) -> Bool {
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
  mutating func arrive(
    id: UInt64, cost: Int, now: Int64, deadline: Int64?, continuation: Continuation, error: (Refusal) -> RateLimitError
  ) -> Resumption? {
    if Task.isCancelled { return .fail(continuation, CancellationError()) }
    if grantNow(cost: cost, now: now) { return .admit(continuation) }
    guard waiters.count < maxQueued else { return .fail(continuation, error(.queueFull)) }

    let bound = policy.maximumWait(cost: cost)
    if bound != nil || deadline != nil {
      let due = predictedAdmission(cost: cost, now: now)
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
  mutating func removeQueued(id: UInt64) -> Continuation? {
    guard let index = waiters.firstIndex(where: { $0.id == id }),
      case .queued(let continuation) = waiters[index].phase
    else { return nil }
    waiters.remove(at: index)
    return continuation
  }

  /// The head woke (`granted`) or was cancelled: grants it at its due instant or gives its turn back, then promotes
  /// the callers behind it.
  mutating func finishHead(id: UInt64, granted: Bool, now: Int64) -> [Resumption] {
    guard let head = waiters.first, head.id == id, case .head(let due) = head.phase else { return [] }
    waiters.removeFirst()
    // Granting at `due` rather than `now` keeps a late wake-up from pushing every later admission back.
    if granted { policy.grant(cost: head.cost, at: due) }
    return promote(now: now)
  }

  /// Admits every waiter at the front that is due by `now`, and makes the next one the sleeping head.
  private mutating func promote(now: Int64) -> [Resumption] {
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
  private func predictedAdmission(cost: Int, now: Int64) -> Int64 {
    var policy = self.policy
    var time = now
    for waiter in waiters {
      switch waiter.phase {
      case .head(let due): time = due
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
