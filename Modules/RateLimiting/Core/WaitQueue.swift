import DequeModule

/// The callers waiting their turn at a ``QueuedRateLimiter``, and the rules by which they are admitted.
///
/// Lives inside the limiter's lock; every method runs with the lock held and is handed the policy the same lock
/// guards. Only the first waiter (the head) ever sleeps, and only to the instant its policy says it is due; the ones
/// behind it wait on continuations and are promoted one at a time. Nothing is granted to anyone else while anyone
/// waits, so the head's due instant stays valid until it wakes.
///
/// A reservation (``QueuedRateLimiter/reserve(cost:)``) joins the queue without a continuation: it holds its place
/// until its owner waits on it, and a reservation promoted before then learns of it when it does.
///
/// Deliberately not generic: the methods are generic over the policy instead, so that a limiter called through
/// `any RateLimiter` (unspecialized code) instantiates no generic type metadata on its fast path.
struct WaitQueue {
  let maxQueued: Int
  private(set) var waiters: Deque<Waiter> = []
  private var lastID: UInt64 = 0
  /// Reservations admitted while nobody was waiting on them; each learns of it when its owner waits.
  private var admittedReservations: Set<UInt64> = []

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
  /// - Parameter continuation: The caller's, or `nil` for a reservation, which holds its place without one.
  /// - Returns: whether it was admitted, refused, made the sleeping head, or queued behind the head.
  mutating func arrive<Policy: RateLimitPolicy>(
    id: UInt64, cost: Int, now: Int64, deadline: Int64?, continuation: Waiter.Continuation?, policy: inout Policy
  ) -> Arrival {
    if grantNow(cost: cost, now: now, policy: &policy) { return .admitted }
    guard waiters.count < maxQueued else { return .refused(.queueFull) }

    let bound = policy.maximumWait(cost: cost)
    if bound != nil || deadline != nil {
      let due = predictedAdmission(cost: cost, now: now, policy: policy)
      if let bound, due - now > bound { return .refused(.bucketFull(wait: due - now)) }
      if let deadline, due > deadline { return .refused(.deadline(wait: due - now)) }
    }
    if waiters.isEmpty {
      let due = policy.earliestAdmission(cost: cost, notBefore: now)
      waiters.append(Waiter(id: id, cost: cost, phase: .head(due: due)))
      return .head(due: due)
    }
    waiters.append(Waiter(id: id, cost: cost, phase: continuation.map { .queued($0) } ?? .reserved))
    return .queued
  }

  /// The owner of a reservation that was ``Arrival/queued`` waits on it now.
  ///
  /// - Returns: how to resume `continuation` at once, or `nil` when the reservation is still behind the head.
  mutating func attach(id: UInt64, continuation: Waiter.Continuation) -> Resumption? {
    if admittedReservations.remove(id) != nil { return .admit(continuation) }
    guard let index = waiters.firstIndex(where: { $0.id == id }) else {
      return .fail(continuation, CancellationError())
    }
    switch waiters[index].phase {
    case .head(let due): return .sleep(continuation, until: due)
    case .reserved, .queued:
      waiters[index].phase = .queued(continuation)
      return nil
    }
  }

  /// Gives up a reservation nobody waits on (dropped or cancelled before its owner waited).
  ///
  /// - Returns: the callers promoted in its place.
  mutating func cancelReservation<Policy: RateLimitPolicy>(
    id: UInt64, now: Int64, policy: inout Policy
  ) -> [Resumption] {
    if admittedReservations.remove(id) != nil { return [] }  // its permit is spent, as an admitted caller's is
    guard let index = waiters.firstIndex(where: { $0.id == id }) else { return [] }
    switch waiters[index].phase {
    case .head: return finishHead(id: id, granted: false, now: now, policy: &policy)
    case .reserved, .queued:
      waiters.remove(at: index)
      return []
    }
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
  ///
  /// A head is counted when it really goes, never at its due instant: counted at the due instant, a head that woke
  /// late would let the next one go less than the policy's spacing after it (REQUIREMENTS L1). A stall (a busy
  /// machine, a system sleep) therefore never turns into a burst of the callers behind it; the head wakes a little
  /// early and yields until it is due (`sleep(untilPreciselyDue:)`), so that a timer's usual lateness does not add up
  /// down the queue.
  mutating func finishHead<Policy: RateLimitPolicy>(
    id: UInt64, granted: Bool, now: Int64, policy: inout Policy
  ) -> [Resumption] {
    guard let head = waiters.first, head.id == id, case .head(let due) = head.phase else { return [] }
    waiters.removeFirst()
    if granted { policy.grant(cost: head.cost, at: max(now, due)) }
    return promote(now: now, policy: &policy)
  }

  /// Admits every waiter at the front that is due by `now`, and makes the next one the sleeping head.
  ///
  /// A reservation nobody waits on yet is admitted or made the head all the same; its owner learns which on
  /// ``attach(id:continuation:)``.
  private mutating func promote<Policy: RateLimitPolicy>(now: Int64, policy: inout Policy) -> [Resumption] {
    var resumptions: [Resumption] = []
    while let next = waiters.first {
      let continuation: Waiter.Continuation?
      switch next.phase {
      case .head: return resumptions
      case .queued(let waiting): continuation = waiting
      case .reserved: continuation = nil
      }
      let due = policy.earliestAdmission(cost: next.cost, notBefore: now)
      if due <= now {
        policy.grant(cost: next.cost, at: now)
        waiters.removeFirst()
        if let continuation { resumptions.append(.admit(continuation)) } else { admittedReservations.insert(next.id) }
      } else {
        waiters[waiters.startIndex].phase = .head(due: due)
        if let continuation { resumptions.append(.sleep(continuation, until: due)) }
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
      case .queued, .reserved: time = policy.earliestAdmission(cost: waiter.cost, notBefore: time)
      }
      policy.grant(cost: waiter.cost, at: time)
    }
    return policy.earliestAdmission(cost: cost, notBefore: time)
  }
}

/// What ``WaitQueue/arrive(id:cost:now:deadline:continuation:policy:)`` decided for a caller.
enum Arrival {
  /// Granted now.
  case admitted
  /// Refused at once.
  case refused(Refusal)
  /// The head of the queue: it sleeps until `due`, then is granted.
  case head(due: Int64)
  /// In line behind the head.
  case queued
}

/// Why a caller was refused; the limiter turns it into a ``RateLimitError`` with its own description.
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
    /// Behind the head, a reservation whose owner has not waited yet.
    case reserved
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
