/// A fault the Sandbox injects into matching requests: an error status, added latency, dropped connections.
///
/// Decisions are random, drawn from SplitMix64: with a `seed` they are the same on every run. For each request a
/// fault applies to, it draws once for `dropConnectionRate` (if above 0), then once for `rate` (if a `status` is set
/// and `rate` is below 1); a draw `u` in [0, 1) triggers when `u < rate`.
public struct SandboxFault: Sendable, Hashable {
  /// The exact path it applies to, such as `/v1/events/batch`, or `*` for every route but `/_sandbox`.
  public var route: String
  /// The status to answer with instead of handling the request, 200–599 (`nil`: never answers in its place).
  public var status: Int?
  /// The share of matching requests answered with `status`, 0 to 1.
  public var rate: Double
  /// Latency added to every matching request.
  public var latency: Duration
  /// The share of matching requests whose connection is closed without a response, 0 to 1.
  public var dropConnectionRate: Double
  /// After this many matching requests the fault ends (`nil`: never).
  public var count: Int?
  /// Makes the random decisions reproducible.
  public var seed: UInt64?

  /// A fault; by default one that matches every route and does nothing.
  public init(
    route: String = "*", status: Int? = nil, rate: Double = 1, latency: Duration = .zero,
    dropConnectionRate: Double = 0, count: Int? = nil, seed: UInt64? = nil
  ) {
    self.route = route
    self.status = status
    self.rate = rate
    self.latency = latency
    self.dropConnectionRate = dropConnectionRate
    self.count = count
    self.seed = seed
  }

  /// Whether it applies to `path`.
  func matches(_ path: String) -> Bool { route == "*" || route == path }
}
