/// When a ``SocketIOClient`` tries again after a connection failed or was lost (REQUIREMENTS R3): exponential backoff
/// with jitter, the defaults socket.io-client's.
///
/// ```swift
/// let standard = ReconnectionPolicy()                   // ~1 s, ~2 s, ~4 s, then ~5 s, forever
/// let patient = ReconnectionPolicy(initialDelay: .seconds(2), maxDelay: .seconds(60), maxAttempts: 20)
/// print(standard.maxDelay, patient.maxAttempts ?? 0)
/// ```
public struct ReconnectionPolicy: Sendable {
  /// The wait before the first attempt, before jitter; it doubles for each attempt after. Default 1 s.
  public var initialDelay: Duration
  /// The longest wait, before jitter. Default 5 s.
  public var maxDelay: Duration
  /// How far the jitter moves a wait either way, as a fraction of it: 0.5 makes 1 s anything in [0.5, 1.5) s.
  /// Default 0.5, so that clients cut off together do not come back together.
  public var jitter: Double
  /// The most attempts in a row, `nil` for no limit (the default): after the last, the client stays disconnected.
  public var maxAttempts: Int?
  /// Draws the jitter: a number in [0, 1). Tests pass a fixed one.
  public var random: @Sendable () -> Double

  /// A policy; every parameter defaults to socket.io-client's value.
  public init(
    initialDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(5), jitter: Double = 0.5,
    maxAttempts: Int? = nil, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
  ) {
    self.initialDelay = initialDelay
    self.maxDelay = maxDelay
    self.jitter = min(max(jitter, 0), 1)
    self.maxAttempts = maxAttempts
    self.random = random
  }

  /// No reconnection: a lost connection stays lost until the app connects again.
  public static var never: ReconnectionPolicy { ReconnectionPolicy(maxAttempts: 0) }

  /// Whether attempt `attempt` (1, 2, …) may be made.
  func allows(attempt: Int) -> Bool { maxAttempts.map { attempt <= $0 } ?? true }

  /// The wait before attempt `attempt` (1, 2, …): `min(maxDelay, initialDelay × 2^(attempt−1))`, moved by up to
  /// `jitter` of itself either way.
  func delay(beforeAttempt attempt: Int) -> Duration {
    let exponential = min(initialDelay * (1 << min(max(attempt - 1, 0), 30)), maxDelay)
    let factor = 1 + jitter * (2 * random() - 1)
    return max(exponential * factor, .zero)
  }
}
