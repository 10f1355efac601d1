/// One admission of the generic cell rate algorithm, as a ``SharedRateLimiter``'s store takes it: the arithmetic that
/// ``InMemoryGCRAStore`` runs in Swift and a database store runs in one statement.
///
/// The state is one number per key, the theoretical arrival time (TAT). A request of `cost` arriving at `now` gets the
/// slot `max(now, tat + (cost − burst) × interval)`; if that is no more than `maxWait` away it is reserved and the TAT
/// moves to `max(tat, now) + cost × interval`, otherwise nothing changes and the request is refused. Every time is in
/// microseconds on the store's one clock, so that processes on different machines never compare their own clocks.
///
/// ```swift
/// let step = GCRAStep(interval: 1_000_000, burst: 1, cost: 1, maxWait: 9_000_000)
/// let first = step.reserve(theoreticalArrival: nil, now: 0)        // slot 0, TAT 1 s
/// let second = step.reserve(theoreticalArrival: first?.theoreticalArrival, now: 0)  // slot 1 s, TAT 2 s
/// ```
public struct GCRAStep: Sendable, Hashable {
  /// What a reservation decided: when the request may go, and the TAT it left behind.
  public struct Slot: Sendable, Hashable {
    /// The instant the request may go, on the store's clock, in microseconds.
    public let admission: Int64
    /// The new theoretical arrival time: what the store keeps, and what identifies this reservation when it is given
    /// back.
    public let theoreticalArrival: Int64

    /// A slot at `admission` that left `theoreticalArrival`: what a store that runs the step elsewhere returns.
    public init(admission: Int64, theoreticalArrival: Int64) {
      self.admission = admission
      self.theoreticalArrival = theoreticalArrival
    }
  }

  /// The emission interval (one permit's share of the rate), in microseconds.
  public let interval: Int64
  /// How many requests may go back to back after a quiet spell.
  public let burst: Int
  /// The permits the request takes.
  public let cost: Int
  /// The longest a request may be made to wait before it is refused instead, in microseconds.
  public let maxWait: Int64

  /// One step of GCRA.
  ///
  /// - Precondition: `interval > 0`, `1 <= cost <= burst`, `maxWait >= 0`.
  public init(interval: Int64, burst: Int, cost: Int, maxWait: Int64) {
    precondition(interval > 0 && cost >= 1 && cost <= burst && maxWait >= 0, "invalid GCRA step")
    self.interval = interval
    self.burst = burst
    self.cost = cost
    self.maxWait = maxWait
  }

  /// How far the TAT moves for this request: `cost × interval`.
  public var increment: Int64 { Int64(cost) * interval }

  /// Where the slot sits relative to the TAT: `(cost − burst) × interval`, never positive.
  public var offset: Int64 { Int64(cost - burst) * interval }

  /// The reservation of a request arriving at `now` when the key's TAT is `theoreticalArrival` (`nil`: never used),
  /// or `nil` when its slot is more than ``maxWait`` away (the state is then left as it was).
  public func reserve(theoreticalArrival: Int64?, now: Int64) -> Slot? {
    let tat = theoreticalArrival ?? now
    let admission = max(now, tat + offset)
    guard admission - now <= maxWait else { return nil }
    return Slot(admission: admission, theoreticalArrival: max(tat, now) + increment)
  }

  /// The TAT after giving back `slot`, if it is still the newest reservation (`theoreticalArrival` unchanged since);
  /// `nil` when another was made after it, whose slot must not move, so that this one simply goes unused.
  public func release(_ slot: Slot, theoreticalArrival: Int64) -> Int64? {
    theoreticalArrival == slot.theoreticalArrival ? slot.theoreticalArrival - increment : nil
  }
}
