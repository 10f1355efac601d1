import RateLimiting

/// Where user managers take their turns: one limiter per application, shared by every ``UserManager`` given the same
/// `UserManagerLimiters` (REQUIREMENTS U8, L1).
///
/// The Platform API's limit belongs to the application, not to an object: two managers of one application, each with
/// a limiter of its own, would together send two requests a second. An application is its API's host and port and
/// its id (``SendbirdApplication/rateLimitKey``).
///
/// - ``shared(rate:queueCapacity:)``: one set per process for each policy, on the continuous clock; what
///   `Dependencies.live` and `SendbirdUserManager()` use.
/// - ``init(rate:queueCapacity:clock:)``: a set of its own, on any clock (tests, or a deliberately separate budget).
/// - ``init(makeLimiter:)``: limiters made elsewhere, such as a PostgreSQL store that shares the limit across
///   processes and machines.
///
/// ```swift
/// import Foundation
/// import Networking
///
/// let limiters = UserManagerLimiters.shared()
/// let store = UserStore(file: nil)
/// let first = UserManager(transport: URLSessionTransport(), limiters: limiters, store: store, clock: ContinuousClock())
/// let second = UserManager(transport: URLSessionTransport(), limiters: limiters, store: store, clock: ContinuousClock())
/// // `first` and `second` together send at most one request a second to any one application.
/// ```
public final class UserManagerLimiters: Sendable {
  private let keyed: KeyedRateLimiter<String>

  /// Limiters that `makeLimiter` makes, one per application on its first use.
  ///
  /// - Parameter makeLimiter: Makes the limiter of the application whose ``SendbirdApplication/rateLimitKey`` it is
  ///   given.
  public init(makeLimiter: @escaping @Sendable (_ applicationKey: String) -> any RateLimiter) {
    keyed = KeyedRateLimiter(makeLimiter: makeLimiter)
  }

  /// A set of its own: a leaky bucket at `rate` holding `queueCapacity` for each application, on `clock`.
  ///
  /// - Parameters:
  ///   - rate: The pace of each application's requests.
  ///   - queueCapacity: How many requests each application's limiter holds, the one leaving now included.
  ///   - clock: The clock the limiters wait on.
  public convenience init<C: Clock<Duration>>(
    rate: Rate = UserManager.requestRate, queueCapacity: Int = UserManager.queueCapacity, clock: C
  ) {
    self.init { _ in LeakyBucket(rate: rate, capacity: queueCapacity, clock: clock) }
  }

  /// Limiters kept in `store`, shared with every process that uses it: the user-manager policy, GCRA with a burst of
  /// 1 and `queueCapacity − 1` waiting behind the one going now, under the key `users/` and the application's
  /// ``SendbirdApplication/rateLimitKey`` (REQUIREMENTS L2).
  ///
  /// - Parameters:
  ///   - store: Where the limits live, such as the `PostgresLimits` product's PostgreSQL store.
  ///   - rate: The pace of each application's requests.
  ///   - queueCapacity: How many requests each application's limiter holds, the one leaving now included.
  ///   - clock: What each caller sleeps its wait on; the store's own clock decides the slots.
  public convenience init<C: Clock<Duration>>(
    store: any GCRAStore, rate: Rate = UserManager.requestRate, queueCapacity: Int = UserManager.queueCapacity,
    clock: C
  ) {
    self.init { applicationKey in
      SharedRateLimiter(
        key: "users/\(applicationKey)", rate: rate, burst: 1, maxQueued: queueCapacity - 1, store: store,
        clock: clock)
    }
  }

  /// The limiter of `application`, made now if this is its first use.
  public func limiter(for application: SendbirdApplication) -> any RateLimiter {
    keyed.limiter(for: application.rateLimitKey)
  }
}
