import RateLimiting

extension UserManager {
  /// The pace of user-manager requests (REQUIREMENTS U8): one per second, Sendbird's free-trial limit. The one
  /// place this policy is written: ``KeelConfiguration`` defaults to it and `LeakyBucket.userManager` applies it.
  public static let requestRate: Rate = .perSecond(1)
  /// How many user-manager requests wait at the limiter, the one leaving now included; one more fails at once. At
  /// one per second, the tenth waits 9 seconds.
  public static let queueCapacity = 10
  /// The most users one ``createUsers(params:)`` call creates (REQUIREMENTS U4), the Platform API's batch limit;
  /// a larger batch is refused before anything is sent.
  public static let maxBatchSize = 10
}

extension QueuedRateLimiter where Policy == LeakyBucketPolicy {
  /// The user manager's policy (REQUIREMENTS U8): ``UserManager/requestRate``, the first at once, at most
  /// ``UserManager/queueCapacity`` in line.
  ///
  /// Eleven calls at the same instant are admitted at 0, 1, …, 9 s, and the eleventh is refused at once with
  /// `RateLimitError.Kind.queueFull`.
  public static func userManager(clock: C) -> Self {
    Self(rate: UserManager.requestRate, capacity: UserManager.queueCapacity, clock: clock)
  }
}
