import Foundation
@_exported import KeelErrors

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Why a request failed, in a form a caller can act on (REQUIREMENTS U10, A3). A cancelled caller gets Swift's
/// `CancellationError` instead, as from every Keel call that waits.
///
/// A struct rather than an enum so that kinds can be added without breaking anyone's `switch`: compare ``kind``, and
/// read the detail that goes with it (``serverError``, ``statusCode``, ``urlError``, ``decodingPath``, …).
///
/// ```swift
/// func message(for error: NetworkError) -> String {
///   switch error.kind {
///   case .server where error.serverError?.code == "400201": "No such user."   // the server's "not found"
///   case .transport: "You seem to be offline."
///   default: error.description
///   }
/// }
/// ```
public struct NetworkError: Error, Sendable, CustomStringConvertible {
  /// The kind of failure.
  public typealias Kind = ErrorKind<NetworkError>

  /// The kind of failure.
  public let kind: Kind
  /// A complete sentence describing the failure.
  public let description: String
  /// The HTTP status, when the server answered.
  public var statusCode: Int?
  /// The server's own description of the error, decoded from its body.
  public var serverError: ServerError?
  /// The response body of a failed request (at most 64 KiB), when the server answered.
  public var body: Data?
  /// The response headers of a failed request, when the server answered (`Retry-After` lives here).
  public var headers: [String: String]?
  /// The transport error, for `Kind.transport`.
  public var urlError: URLError?
  /// The coding path at which decoding failed, for `Kind.decoding`, for example `users[2].created_at`.
  public var decodingPath: String?
  /// The error that caused this one, if any.
  public var underlying: (any Error)?

  /// An error of `kind` described by `description`, a complete sentence; set the details that apply after.
  ///
  /// For interceptors and authenticators that fail a request with an error of their own.
  public init(_ kind: Kind, _ description: String) {
    self.kind = kind
    self.description = description
  }

  static func invalidRequest(_ reason: String) -> NetworkError {
    NetworkError(.invalidRequest, "Invalid request: \(reason).")
  }
}

extension ErrorKind where Owner == NetworkError {
  /// The request could not be built (bad URL, a body that cannot be encoded, invalid input); nothing was sent.
  public static var invalidRequest: Self { Self("invalidRequest") }
  /// The transfer failed: no connection, timeout, dropped connection. ``NetworkError/urlError`` has the detail.
  public static var transport: Self { Self("transport") }
  /// The server answered with a status the request does not accept, and no ``ServerErrorDecoder`` read its body.
  public static var status: Self { Self("status") }
  /// The server answered with an error it described; ``NetworkError/serverError`` has its code and message.
  public static var server: Self { Self("server") }
  /// The response could not be decoded; ``NetworkError/decodingPath`` says where.
  public static var decoding: Self { Self("decoding") }
  /// A rate limiter refused the request before it was sent.
  public static var rateLimited: Self { Self("rateLimited") }
  /// The session is over (the credential could not be refreshed); the user must sign in again.
  public static var sessionExpired: Self { Self("sessionExpired") }
}
