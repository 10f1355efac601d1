/// Where ``SharedRateLimiter``s keep their state: one theoretical arrival time per key, reserved and given back
/// atomically, on the store's one clock (REQUIREMENTS L2).
///
/// Every process that shares a limit talks to the same store: in this module, ``InMemoryGCRAStore`` for one process
/// (and tests); in the `PostgresLimits` product, a PostgreSQL table shared by processes on any number of machines.
public protocol GCRAStore: Sendable {
  /// Runs `step` for `key` atomically at the store's current time.
  ///
  /// - Returns: the slot, and the wait until it measured by the store at the moment it answered; `nil` when the
  ///   request would wait longer than `step.maxWait` (nothing was changed).
  /// - Throws: when the store cannot be used (unreachable, timed out); nothing was reserved, as far as the caller can
  ///   tell.
  func reserve(key: String, step: GCRAStep) async throws -> GCRAReservation?

  /// Gives `reservation` back if no reservation of `key` was made after it; otherwise leaves everything as it is.
  func release(key: String, reservation: GCRAReservation, step: GCRAStep) async throws
}

/// A slot a ``GCRAStore`` reserved.
public struct GCRAReservation: Sendable, Hashable {
  /// The slot and the TAT it left.
  public let slot: GCRAStep.Slot
  /// How long until the slot, on the store's clock, when the store answered; zero when it has come.
  public let wait: Duration

  /// A reservation of `slot`, due in `wait`.
  public init(slot: GCRAStep.Slot, wait: Duration) {
    self.slot = slot
    self.wait = wait
  }
}
