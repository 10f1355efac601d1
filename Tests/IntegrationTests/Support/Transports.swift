import NIOTransports
import Networking
import Testing

/// The two HTTP transports every integration test runs on: URLSession (FoundationNetworking over libcurl on Linux)
/// and AsyncHTTPClient on SwiftNIO.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  /// ``Networking/URLSessionTransport``, Keel's default.
  case urlSession
  /// ``NIOTransports/NIOHTTPTransport``.
  case nio

  /// A transport of this kind: a new URLSessionTransport, or the one NIO transport every test shares (one connection
  /// pool, never released).
  var transport: any HTTPTransport {
    switch self {
    case .urlSession: URLSessionTransport()
    case .nio: Self.sharedNIO
    }
  }

  /// The name a test's argument shows in the results: "URLSession" or "NIO".
  var testDescription: String {
    switch self {
    case .urlSession: "URLSession"
    case .nio: "NIO"
    }
  }

  /// The NIO transport of every test: built on first use and never shut down, so that tests running in parallel
  /// share its pool instead of each leaving one to close in the background. A request may wait a minute for a pooled
  /// connection: under ThreadSanitizer, with every suite at once on two cores, 50 concurrent requests over 8
  /// connections waited longer than the default 10 s and failed as `timedOut` before they were sent (CI's TSan run).
  ///
  /// Idle connections close after a second, not a minute: a test's `Sandbox.stop()` waits for any connection to it
  /// that the pool opened and never used (Hummingbird neither quiesces nor times out such a connection), and a full
  /// `swift test` once spent 60 s in one chat test's stop that way.
  static let sharedNIO = NIOHTTPTransport(
    configuration: .init(connectTimeout: .seconds(60), idleConnectionTimeout: .seconds(1)))
}
