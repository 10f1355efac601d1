import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Moves one request over the wire and returns the server's answer, whatever its status (REQUIREMENTS A2).
///
/// ``URLSessionTransport`` is the default; tests use a fake, so that everything above the transport runs without a
/// network.
public protocol HTTPTransport: Sendable {
  /// Sends `request` and returns the response, or throws `URLError` (or `CancellationError`) when there is none.
  func send(_ request: URLRequest) async throws -> RawResponse

  /// What streams bodies to and from files through this transport, or `nil` when it cannot (``HTTPClient`` then
  /// refuses a file body before sending). By default the transport itself when it is a ``FileTransferTransport``; a
  /// transport that wraps another (``MonitoredTransport``, one that adds a header) returns its base's, wrapped the
  /// same way, so that wrapping never loses file transfers.
  var fileTransfers: (any FileTransferTransport)? { get }
}

extension HTTPTransport {
  /// The transport itself when it is a ``FileTransferTransport``, else `nil`.
  public var fileTransfers: (any FileTransferTransport)? { self as? any FileTransferTransport }
}

/// A response as it came back: status, headers and body.
public struct RawResponse: Sendable {
  /// The HTTP status.
  public var status: Int
  /// The headers; look names up with ``header(_:)``, which ignores case.
  public var headers: [String: String]
  /// The body, as received; empty when there is none.
  public var body: Data

  /// A response with `status`, `headers` (names in any case) and `body`: what a fake transport answers in tests.
  public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// The value of the header `name`, ignoring case.
  public func header(_ name: String) -> String? {
    if let exact = headers[name] { return exact }
    return headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
  }
}
