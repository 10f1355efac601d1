/// A fault the Sandbox injects into matching requests: an error status, added latency, dropped connections, answers
/// lost after the request was handled.
///
/// Decisions are random, drawn from SplitMix64: with a `seed` they are the same on every run. For each request a
/// fault applies to, it draws once for `dropConnectionRate` (if above 0), then once for `rate` (if a `status` is set
/// and `rate` is below 1), then once for `dropResponseRate` (if above 0); a draw `u` in [0, 1) triggers when
/// `u < rate`.
public struct SandboxFault: Sendable, Hashable {
  /// The exact path it applies to, such as `/v1/events/batch`, or `*` for every route but `/_sandbox`.
  public var route: String
  /// The method it applies to, such as `POST`; `nil` for every method.
  public var method: String?
  /// The status to answer with instead of handling the request, 200–599 (`nil`: never answers in its place).
  public var status: Int?
  /// The share of matching requests answered with `status`, 0 to 1.
  public var rate: Double
  /// Sent as the injected answer's `Retry-After`, in whole seconds rounded up (`nil`: no such header), as a busy
  /// server or a gateway says when to come back.
  public var retryAfter: Duration?
  /// Latency added to every matching request.
  public var latency: Duration
  /// The share of matching requests whose connection is closed without a response, 0 to 1.
  public var dropConnectionRate: Double
  /// The share of matching requests that are handled in full (a message stored, say) and whose connection is then
  /// closed without the response, 0 to 1: what a client sees when the server did the work but the answer was lost.
  public var dropResponseRate: Double
  /// After this many matching requests the fault ends (`nil`: never).
  public var count: Int?
  /// Makes the random decisions reproducible.
  public var seed: UInt64?

  /// A fault; by default one that matches every route and does nothing.
  public init(
    route: String = "*", method: String? = nil, status: Int? = nil, rate: Double = 1, retryAfter: Duration? = nil,
    latency: Duration = .zero, dropConnectionRate: Double = 0, dropResponseRate: Double = 0, count: Int? = nil,
    seed: UInt64? = nil
  ) {
    self.route = route
    self.method = method?.uppercased()
    self.status = status
    self.rate = rate
    self.retryAfter = retryAfter
    self.latency = latency
    self.dropConnectionRate = dropConnectionRate
    self.dropResponseRate = dropResponseRate
    self.count = count
    self.seed = seed
  }

  /// ``retryAfter`` as the header's whole seconds, rounded up.
  var retryAfterSeconds: Int? {
    retryAfter.map { duration in
      let (seconds, attoseconds) = duration.components
      return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }
  }

  /// Whether it applies to a `method` request to `path`.
  func matches(method: String, path: String) -> Bool {
    (route == "*" || route == path) && (self.method == nil || self.method == method.uppercased())
  }
}
