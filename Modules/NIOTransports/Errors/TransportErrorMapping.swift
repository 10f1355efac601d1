import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Turns what SwiftNIO and AsyncHTTPClient throw into the `URLError` codes the layers above already read: the retry
/// policy, the offline inference of `InferredNetworkMonitor`, and token refresh treat a NIO failure exactly as they
/// treat URLSession's.
enum TransportErrorMapping {
  /// The `URLError` for `error`, with its own description kept as the localized description.
  static func urlError(for error: any Error, url: URL?) -> URLError {
    if let error = error as? URLError { return error }
    var info: [String: Any] = [NSLocalizedDescriptionKey: "\(error)"]
    if let url { info[NSURLErrorFailingURLErrorKey] = url }
    return URLError(code(for: error), userInfo: info)
  }

  /// The code of the `URLError` URLSession throws in the same circumstance.
  static func code(for error: any Error) -> URLError.Code {
    switch error {
    case let error as HTTPClientError: code(for: error)
    case let error as NIOConnectionError:
      // Every address failed: refused or unreachable; none resolved: no such host.
      error.connectionErrors.isEmpty && (error.dnsAError != nil || error.dnsAAAAError != nil)
        ? .cannotFindHost : .cannotConnectToHost
    case let error as IOError: code(errno: error.errnoCode)
    case let error as ChannelError: code(for: error)
    case is SocketAddressError: .cannotFindHost
    case is NIOSSLError, is BoringSSLError: .secureConnectionFailed
    case is NIOTooManyBytesError: .dataLengthExceedsMaximum
    case is HTTPParserError: .badServerResponse
    case is CancellationError: .cancelled
    default: .unknown
    }
  }

  private static func code(for error: HTTPClientError) -> URLError.Code {
    switch error {
    case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout,
      .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
      .timedOut
    case .remoteConnectionClosed, .uncleanShutdown: .networkConnectionLost
    case .cancelled, .requestStreamCancelled: .cancelled
    case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath: .badURL
    case .redirectLimitReached, .redirectCycleDetected: .httpTooManyRedirects
    case .bodyLengthMismatch, .contentLengthMissing: .badServerResponse
    case .alreadyShutdown: .cancelled
    default: unsupportedScheme(error) ? .unsupportedURL : .unknown
    }
  }

  /// `HTTPClientError.unsupportedScheme(_)` carries the scheme, so it cannot be matched by value.
  private static func unsupportedScheme(_ error: HTTPClientError) -> Bool {
    "\(error)".contains("unsupportedScheme")
  }

  private static func code(for error: ChannelError) -> URLError.Code {
    switch error {
    case .connectTimeout: .timedOut
    case .ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed, .inputClosed: .networkConnectionLost
    default: .unknown
    }
  }

  private static func code(errno: Int32) -> URLError.Code {
    switch errno {
    case ECONNREFUSED: .cannotConnectToHost
    case ECONNRESET, EPIPE, ECONNABORTED: .networkConnectionLost
    case ENETUNREACH, ENETDOWN: .notConnectedToInternet
    case EHOSTUNREACH, EHOSTDOWN: .cannotConnectToHost
    case ETIMEDOUT: .timedOut
    default: .unknown
    }
  }
}
