import KeelConcurrency

/// A rate limiter per key, such as one per endpoint, created on first use and optionally under a global limiter.
///
/// A request for a key waits for that key's limiter and then for the global one, so a busy key never holds up the
/// others while it waits for its own permit.
///
/// ```swift
/// let limits = KeyedRateLimiter<String>(global: TokenBucket(rate: .perSecond(20), burst: 20)) { _ in
///   TokenBucket(rate: .perSecond(5), burst: 5)
/// }
/// try await limits.acquire("POST /v3/users")
/// ```
public final class KeyedRateLimiter<Key: Hashable & Sendable>: Sendable {
  /// Makes the limiter for a key the first time the key is used.
  public typealias Factory = @Sendable (Key) -> any RateLimiter

  /// The limiter every request passes after its key's limiter, if any.
  public let global: (any RateLimiter)?

  private let makeLimiter: Factory
  private let limiters = Locked<[Key: any RateLimiter]>([:])

  /// Creates an empty set of keyed limiters.
  ///
  /// - Parameters:
  ///   - global: A limiter every request also passes, after its key's limiter.
  ///   - makeLimiter: Makes the limiter for a key on its first use.
  public init(global: (any RateLimiter)? = nil, makeLimiter: @escaping Factory) {
    self.global = global
    self.makeLimiter = makeLimiter
  }

  /// The limiter for `key`, created now if this is the key's first use.
  public func limiter(for key: Key) -> any RateLimiter {
    if let existing = limiters.withLock({ $0[key] }) { return existing }
    // Made outside the lock, so that a slow or re-entrant factory holds up no other key. When two callers race on a
    // new key, the first to store its limiter wins and both use it.
    let created = makeLimiter(key)
    return limiters.withLock { limiters in
      if let winner = limiters[key] { return winner }
      limiters[key] = created
      return created
    }
  }

  /// How many keys have a limiter.
  public var keyCount: Int { limiters.withLock { $0.count } }

  /// Forgets the limiter for `key`; its next use starts a fresh one. Callers already waiting on it are unaffected.
  public func removeLimiter(for key: Key) {
    _ = limiters.withLock { $0.removeValue(forKey: key) }
  }

  /// Waits for `cost` permits from `key`'s limiter, then from the global one.
  ///
  /// - Throws: what either limiter throws: ``RateLimitError`` or `CancellationError`. If the global limiter refuses,
  ///   the permits already taken from the key's limiter stay spent, which errs on the side of sending less.
  public func acquire(_ key: Key, cost: Int = 1) async throws {
    try await limiter(for: key).acquire(cost: cost)
    try await global?.acquire(cost: cost)
  }

  /// Takes `cost` permits from `key`'s limiter and the global one if both have them free now; never waits.
  ///
  /// - Returns: `true` if both admitted. When the key's limiter admits and the global one does not, the key's
  ///   permits stay spent, which errs on the side of sending less.
  public func tryAcquire(_ key: Key, cost: Int = 1) -> Bool {
    guard limiter(for: key).tryAcquire(cost: cost) else { return false }
    return global?.tryAcquire(cost: cost) ?? true
  }
}
