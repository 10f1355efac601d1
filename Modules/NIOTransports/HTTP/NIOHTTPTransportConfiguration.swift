import NIOCore

/// How a ``NIOHTTPTransport`` connects, pools and bounds its requests.
///
/// The defaults suit an app or a CLI talking to one API: a 10-second connect timeout, a 60-second idle timeout for
/// file transfers,
/// 8 pooled connections per host kept for 60 seconds, redirects followed (at most 5), gzip and deflate answers
/// decompressed (at most 100 times their compressed size), and responses of at most 64 MiB held in memory.
public struct NIOHTTPTransportConfiguration: Sendable {
  /// How long a new connection (TCP, and TLS for `https`) may take; a request whose own `timeoutInterval` is shorter
  /// is bounded by that instead. It also bounds how long a request waits for a pooled connection when all
  /// ``maxConnectionsPerHost`` are busy (AsyncHTTPClient's rule: past it the request fails with `URLError.timedOut`
  /// and is never sent), so a caller that queues many more requests than connections to a slow server raises both.
  public var connectTimeout: Duration
  /// How long a file transfer may go without a byte moving: its idle timeout (`URLError.timedOut` beyond). An
  /// in-memory ``NIOHTTPTransport/send(_:)`` is bounded as a whole by its request's `timeoutInterval` instead, or by
  /// this when the request has none.
  public var readTimeout: Duration
  /// How many connections per host the pool keeps open at most (more are opened for a burst, then closed).
  public var maxConnectionsPerHost: Int
  /// How long an idle pooled connection is kept before it is closed.
  public var idleConnectionTimeout: Duration
  /// How many redirects are followed, as URLSession follows them; 0 returns every 3xx to the caller.
  public var maxRedirects: Int
  /// Whether `gzip` and `deflate` answers are asked for and decompressed, as URLSession does.
  public var decompresses: Bool
  /// The largest response body ``NIOHTTPTransport/send(_:)`` holds in memory; a larger one fails with
  /// `URLError.dataLengthExceedsMaximum`. Downloads to a file are not bounded by it.
  public var maxResponseBodySize: Int

  /// A configuration; every parameter defaults to what suits most apps.
  public init(
    connectTimeout: Duration = .seconds(10),
    readTimeout: Duration = .seconds(60),
    maxConnectionsPerHost: Int = 8,
    idleConnectionTimeout: Duration = .seconds(60),
    maxRedirects: Int = 5,
    decompresses: Bool = true,
    maxResponseBodySize: Int = 64 << 20
  ) {
    self.connectTimeout = connectTimeout
    self.readTimeout = readTimeout
    self.maxConnectionsPerHost = maxConnectionsPerHost
    self.idleConnectionTimeout = idleConnectionTimeout
    self.maxRedirects = maxRedirects
    self.decompresses = decompresses
    self.maxResponseBodySize = maxResponseBodySize
  }
}

extension TimeAmount {
  /// `duration` in nanoseconds, at least one.
  init(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    self = .nanoseconds(nanoseconds.overflow ? .max : max(1, nanoseconds.partialValue + attoseconds / 1_000_000_000))
  }

  /// `interval` seconds, as a `URLRequest`'s `timeoutInterval` gives them; `nil` for none (zero, negative, infinite).
  init?(seconds interval: Double) {
    guard interval > 0, interval.isFinite else { return nil }
    self = .nanoseconds(Int64(min(interval, 9e9) * 1e9))
  }
}
