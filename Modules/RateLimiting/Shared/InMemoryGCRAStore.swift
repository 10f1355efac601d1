import KeelConcurrency

/// A ``GCRAStore`` in this process's memory, on any clock: what ``SharedRateLimiter``s of one process can share, and
/// what their tests run on (a `TestClock`).
///
/// ```swift
/// let clock = ContinuousClock()
/// let store = InMemoryGCRAStore(clock: clock)
/// let limiter = SharedRateLimiter(key: "app", rate: .perSecond(1), maxQueued: 9, store: store, clock: clock)
/// try await limiter.acquire()
/// ```
public final class InMemoryGCRAStore<C: Clock<Duration>>: GCRAStore {
  private let clock: C
  private let origin: C.Instant
  private let arrivals = Locked<[String: Int64]>([:])

  /// A store on `clock`, empty.
  public init(clock: C) {
    self.clock = clock
    origin = clock.now
  }

  /// The theoretical arrival time of `key`, in microseconds since the store was made; `nil` if never used.
  public func theoreticalArrival(of key: String) -> Int64? { arrivals.withLock { $0[key] } }

  /// Runs `step` for `key` at the clock's time.
  public func reserve(key: String, step: GCRAStep) async throws -> GCRAReservation? {
    arrivals.withLock { arrivals in
      let now = microseconds()
      guard let slot = step.reserve(theoreticalArrival: arrivals[key], now: now) else { return nil }
      arrivals[key] = slot.theoreticalArrival
      return GCRAReservation(slot: slot, wait: .microseconds(slot.admission - now))
    }
  }

  /// Gives `reservation` back if it is still the newest of `key`.
  public func release(key: String, reservation: GCRAReservation, step: GCRAStep) async throws {
    arrivals.withLock { arrivals in
      guard let current = arrivals[key], let released = step.release(reservation.slot, theoreticalArrival: current)
      else { return }
      arrivals[key] = released
    }
  }

  private func microseconds() -> Int64 {
    let elapsed = origin.duration(to: clock.now).components
    return elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000
  }
}
