import Foundation
import Logging

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sends ``APIRequest``s over an ``HTTPTransport`` and returns typed values or a ``NetworkError``.
///
/// ```swift
/// let client = HTTPClient()
/// let user = try await client.send(.json(UsersRouter.get(userID: "alice")))
/// ```
///
/// No mutable state: one client can be shared by every task.
public final class HTTPClient: Sendable {
  /// How requests travel.
  public let transport: any HTTPTransport
  /// Read, in order, the body of a failed response into a ``ServerError``.
  public let serverErrorDecoders: [any ServerErrorDecoder]

  private let logger: Logger

  /// A client.
  ///
  /// - Parameters:
  ///   - transport: How requests travel; `URLSessionTransport` by default.
  ///   - serverErrorDecoders: Readers of error bodies, tried in order; by default Sendbird's and the chat backends'.
  ///   - logger: Where the client logs; a logger that discards everything by default.
  public init(
    transport: any HTTPTransport = URLSessionTransport(),
    serverErrorDecoders: [any ServerErrorDecoder] = [.sendbird, .chatBackend],
    logger: Logger = Logger(label: "keel.networking", factory: { _ in SwiftLogNoOpLogHandler() })
  ) {
    self.transport = transport
    self.serverErrorDecoders = serverErrorDecoders
    self.logger = logger
  }

  /// Sends `request` and returns its decoded response.
  ///
  /// - Throws: ``NetworkError``: ``NetworkError/Kind/invalidRequest`` before anything is sent,
  ///   ``NetworkError/Kind/transport``, ``NetworkError/Kind/server`` or ``NetworkError/Kind/status`` for an
  ///   unacceptable status, ``NetworkError/Kind/decoding``, or ``NetworkError/Kind/cancelled``.
  public func send<Response>(_ request: APIRequest<Response>) async throws -> Response {
    try await response(for: request).value
  }

  /// Sends `request` and returns its decoded response with status, headers and duration.
  ///
  /// - Throws: as ``send(_:)``.
  public func response<Response>(for request: APIRequest<Response>) async throws -> APIResponse<Response> {
    let urlRequest = try request.endpoint.urlRequest()
    let clock = ContinuousClock()
    let start = clock.now
    let raw: RawResponse
    do {
      try Task.checkCancellation()
      raw = try await transport.send(urlRequest)
    } catch is CancellationError {
      throw NetworkError(.cancelled, "Cancelled: \(request.endpoint.method) \(request.endpoint.path).")
    } catch let error as URLError where error.code == .cancelled {
      throw NetworkError(.cancelled, "Cancelled: \(request.endpoint.method) \(request.endpoint.path).")
    } catch let error as URLError {
      var failure = NetworkError(
        .transport, "Transport failed for \(request.endpoint.method) \(request.endpoint.path): \(error.code).")
      failure.urlError = error
      throw failure
    }
    let duration = start.duration(to: clock.now)
    guard request.acceptableStatus.contains(raw.status) else { throw failure(for: raw, of: request.endpoint) }
    do {
      return APIResponse(value: try request.decode(raw), status: raw.status, headers: raw.headers, duration: duration)
    } catch {
      throw Self.decodingFailure(error, raw: raw, endpoint: request.endpoint)
    }
  }

  private func failure(for raw: RawResponse, of endpoint: any Endpoint) -> NetworkError {
    let what = "\(endpoint.method) \(endpoint.path)"
    var error: NetworkError
    if let serverError = serverErrorDecoders.lazy.compactMap({ $0.serverError(status: raw.status, body: raw.body) })
      .first
    {
      error = NetworkError(.server, "The server refused \(what): \(serverError).")
      error.serverError = serverError
    } else {
      error = NetworkError(.status, "The server answered \(what) with HTTP \(raw.status).")
    }
    error.statusCode = raw.status
    error.body = raw.body.prefix(64 * 1_024)
    logger.warning("\(error.description)")
    return error
  }

  private static func decodingFailure(_ error: any Error, raw: RawResponse, endpoint: any Endpoint) -> NetworkError {
    let path: String
    switch error as? DecodingError {
    case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .dataCorrupted(let context)?:
      path = Self.render(context.codingPath)
    case .keyNotFound(let key, let context)?:
      path = Self.render(context.codingPath + [key])
    default:
      path = ""
    }
    let excerpt = String(decoding: raw.body.prefix(200), as: UTF8.self)
    var failure = NetworkError(
      .decoding,
      "Cannot decode the response of \(endpoint.method) \(endpoint.path) at \(path.isEmpty ? "the top" : path): "
        + "\(error). Body starts: \(excerpt)")
    failure.decodingPath = path
    failure.statusCode = raw.status
    failure.body = raw.body.prefix(64 * 1_024)
    failure.underlying = error
    return failure
  }

  /// `users[2].created_at`
  private static func render(_ path: [any CodingKey]) -> String {
    path.reduce(into: "") { text, key in
      if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
    }
  }
}
