import Foundation
import KeelErrors
import Logging

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sends ``APIRequest``s over an ``HTTPTransport`` and returns typed values or a ``NetworkError``.
///
/// ```swift
/// import Foundation
///
/// struct User: Decodable, Sendable { var id: String }
///
/// enum ExampleRouter: Endpoint {
///   case user(id: String)
///   var baseURL: URL { URL(string: "https://api.example.com")! }
///   var path: EndpointPath { switch self { case .user(let id): ["v3", "users", id] } }
///   var method: HTTPMethod { .get }
/// }
///
/// let client = HTTPClient()
/// let user: User = try await client.send(.json(ExampleRouter.user(id: "alice")))
/// print(user.id)
/// ```
///
/// No mutable state: one client can be shared by every task.
public final class HTTPClient: Sendable {
  /// How requests travel.
  public let transport: any HTTPTransport
  /// Adapt every attempt and decide retries, in order.
  public let interceptors: [any RequestInterceptor]
  /// Read, in order, the body of a failed response into a ``ServerError``.
  public let serverErrorDecoders: [any ServerErrorDecoder]

  private let logger: Logger
  private let redaction: LogRedaction
  private let now: @Sendable () -> Duration
  private let sleep: @Sendable (Duration) async throws -> Void

  /// The most attempts any request gets, whatever the interceptors say: a guard against a retry loop.
  public static let maxAttempts = 10

  /// A client that sends over `transport`, through `interceptors`, reading error bodies with `serverErrorDecoders`.
  ///
  /// - Parameters:
  ///   - transport: How requests travel; `URLSessionTransport` by default.
  ///   - interceptors: Adapt every attempt and decide retries, in order; none by default.
  ///   - serverErrorDecoders: Readers of error bodies, tried in order; none by default, so that an error carries
  ///     only its status and body until the backend's shape is given (Domain gives its routers' shapes).
  ///   - clock: The clock retry delays and deadlines are measured on; pass a `TestClock` in tests.
  ///   - logger: Where the client logs (REQUIREMENTS U11): each request and response at `debug`, retries at `info`,
  ///     failures at `warning`. A logger that discards everything by default.
  ///   - redaction: What the logs never show: secret headers and fields, and bodies past their first bytes.
  public init(
    transport: any HTTPTransport = URLSessionTransport(),
    interceptors: [any RequestInterceptor] = [],
    serverErrorDecoders: [any ServerErrorDecoder] = [],
    clock: any Clock<Duration> = ContinuousClock(),
    logger: Logger = Logger(label: "keel.networking", factory: { _ in SwiftLogNoOpLogHandler() }),
    redaction: LogRedaction = .standard
  ) {
    self.transport = transport
    self.interceptors = interceptors
    self.serverErrorDecoders = serverErrorDecoders
    self.logger = logger
    self.redaction = redaction
    (now, sleep) = Self.timekeeping(clock)
  }

  private static func timekeeping<C: Clock<Duration>>(
    _ clock: C
  ) -> (@Sendable () -> Duration, @Sendable (Duration) async throws -> Void) {
    let origin = clock.now
    return ({ origin.duration(to: clock.now) }, { try await clock.sleep(for: $0) })
  }

  /// Sends `request` and returns its decoded response.
  ///
  /// - Throws: ``NetworkError``: ``NetworkError/Kind/invalidRequest`` before anything is sent,
  ///   ``NetworkError/Kind/transport``, ``NetworkError/Kind/server`` or ``NetworkError/Kind/status`` for an
  ///   unacceptable status, or ``NetworkError/Kind/decoding``; `CancellationError` when the calling task is cancelled,
  ///   as every Keel call that waits throws it.
  public func send<Response>(_ request: APIRequest<Response>) async throws -> Response {
    try await response(for: request).value
  }

  /// Sends `request` and returns its decoded response with status, headers, duration and attempts.
  ///
  /// Each attempt passes through every interceptor's `adapt`; after a failed one, the first interceptor that does not
  /// answer `doNotRetry` decides. No retry waits past the request's ``APIRequest/deadline``.
  ///
  /// - Throws: as ``send(_:)``.
  public func response<Response>(for request: APIRequest<Response>) async throws -> APIResponse<Response> {
    do {
      return try await attempts(for: request)
    } catch let failure as NetworkError {
      logger.warning("\(failure.description)")
      throw failure
    } catch let error as CancellationError {
      logger.debug("Cancelled: \(request.endpoint.method) \(request.endpoint.path).")
      throw error
    }
  }

  private func attempts<Response>(for request: APIRequest<Response>) async throws -> APIResponse<Response> {
    // The first attempt adapts the request as it was built, held by nothing else, so that setting a header does not
    // copy it (FoundationNetworking copies a shared request on every change); a retry builds it again.
    var first: URLRequest? = try request.endpoint.urlRequest()
    let bodyFile = try fileUpload(of: request.endpoint)
    let start = now()
    var attempt = 1
    var retriesByInterceptor = [Int](repeating: 0, count: interceptors.count)
    while true {
      var urlRequest = try first.take() ?? request.endpoint.urlRequest()
      var context = RequestContext(
        endpoint: request.endpoint, attempt: attempt, deadline: request.deadline.map { start + $0 }, now: now)
      do {
        for interceptor in interceptors {
          try await adapt(&urlRequest, by: interceptor, context: context)
        }
        context.request = urlRequest
        var response = try await send(urlRequest, for: request, bodyFile: bodyFile)
        response.attempts = attempt
        return response
      } catch let failure as NetworkError {
        try Task.checkCancellation()
        guard attempt < Self.maxAttempts else { throw failure }
        let decision = await decision(after: failure, context: context, retries: &retriesByInterceptor)
        // An interceptor that stopped waiting (for a refresh, say) because the caller was cancelled says so here.
        try Task.checkCancellation()
        switch decision {
        case .doNotRetry: throw failure
        case .fail(let replacement): throw replacement
        case .retry:
          logRetry(of: request.endpoint, attempt: attempt + 1, in: .zero, after: failure)
        case .retryAfter(let delay):
          if let deadline = request.deadline, now() - start + delay >= deadline { throw failure }
          logRetry(of: request.endpoint, attempt: attempt + 1, in: delay, after: failure)
          // A zero delay is "retry now": no suspension. A clock's sleep throws only when cancelled.
          if delay > .zero { try await sleep(delay) }
          try Task.checkCancellation()
        }
        attempt += 1
      }
    }
  }

  private func logRetry(of endpoint: any Endpoint, attempt: Int, in delay: Duration, after failure: NetworkError) {
    logger.info(
      "Retrying \(endpoint.method) \(endpoint.path) \(delay > .zero ? "in \(delay)" : "now") (attempt \(attempt)) after: \(failure)"
    )
  }

  private func adapt(_ request: inout URLRequest, by interceptor: any RequestInterceptor, context: RequestContext)
    async throws
  {
    do {
      try await interceptor.adapt(&request, context: context)
    } catch let error as NetworkError {
      throw error
    } catch let error as CancellationError {
      throw error
    } catch {
      var failure = NetworkError.invalidRequest("an interceptor refused it: \(error)")
      failure.underlying = error
      throw failure
    }
  }

  /// The first decision that is not `doNotRetry`, counting a retry against the interceptor that asked for it.
  private func decision(after failure: NetworkError, context: RequestContext, retries: inout [Int]) async
    -> RetryDecision
  {
    var context = context
    for (index, interceptor) in interceptors.enumerated() {
      context.ownRetries = retries[index]
      let decision = await interceptor.retry(after: failure, context: context)
      switch decision {
      case .doNotRetry: continue
      case .retry, .retryAfter: retries[index] += 1
      case .fail: break
      }
      return decision
    }
    return .doNotRetry
  }

  /// The file a request's body is streamed from, and the transport that streams it; `nil` for a body in memory.
  private func fileUpload(of endpoint: any Endpoint) throws -> (URL, any FileTransferTransport)? {
    guard let file = endpoint.body.file else { return nil }
    guard let files = transport.fileTransfers else {
      throw NetworkError.invalidRequest(
        "cannot send \(endpoint.method) \(endpoint.path): its body is a file, and \(type(of: transport)) cannot "
          + "stream one (it is not a FileTransferTransport); nothing was sent")
    }
    return (file, files)
  }

  /// One attempt: send (streaming `bodyFile` when there is one), validate the status, decode.
  private func send<Response>(
    _ urlRequest: URLRequest, for request: APIRequest<Response>, bodyFile: (URL, any FileTransferTransport)?
  ) async throws -> APIResponse<Response> {
    logger.debug("\(self.describe(urlRequest))")
    let start = now()
    let raw: RawResponse
    do {
      try Task.checkCancellation()
      if let (file, files) = bodyFile {
        raw = try await files.upload(urlRequest, fromFile: file).response()
      } else {
        raw = try await transport.send(urlRequest)
      }
    } catch let error as CancellationError {
      throw error
    } catch  where Task.isCancelled {
      // The transport's own word for it (`URLError.cancelled`, a NIO error): the caller gets Swift's.
      throw CancellationError()
    } catch let error as URLError {
      var failure = NetworkError(
        .transport, "Transport failed for \(request.endpoint.method) \(request.endpoint.path): \(error.code).")
      failure.urlError = error
      throw failure
    } catch let error as NetworkError {
      throw error
    } catch {
      // A transport of another kind (NIO, a custom one) keeps the promise that the client throws NetworkError.
      var failure = NetworkError(
        .transport, "Transport failed for \(request.endpoint.method) \(request.endpoint.path): \("\(error)".clause).")
      failure.underlying = error
      throw failure
    }
    let duration = now() - start
    logger.debug("\(self.describe(raw, to: urlRequest, after: duration))")
    guard request.acceptableStatus.contains(raw.status) else { throw failure(for: raw, of: request.endpoint) }
    do {
      return APIResponse(
        value: try request.decode(raw), status: raw.status, headers: raw.headers, duration: duration, attempts: 1)
    } catch {
      throw decodingFailure(error, raw: raw, endpoint: request.endpoint)
    }
  }

  private func failure(for raw: RawResponse, of endpoint: any Endpoint) -> NetworkError {
    let what = "\(endpoint.method) \(endpoint.path)"
    var error: NetworkError
    if let serverError = serverErrorDecoders.lazy.compactMap({ $0.serverError(status: raw.status, body: raw.body) })
      .first
    {
      error = NetworkError(.server, "The server refused \(what): \(serverError.description.clause).")
      error.serverError = serverError
    } else {
      error = NetworkError(.status, "The server answered \(what) with HTTP \(raw.status).")
    }
    error.statusCode = raw.status
    error.body = raw.body.prefix(64 * 1_024)
    error.headers = raw.headers
    return error
  }

  private func decodingFailure(_ error: any Error, raw: RawResponse, endpoint: any Endpoint) -> NetworkError {
    let path: String
    switch error as? DecodingError {
    case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .dataCorrupted(let context)?:
      path = Self.render(context.codingPath)
    case .keyNotFound(let key, let context)?:
      path = Self.render(context.codingPath + [key])
    default:
      path = ""
    }
    // Redacted: this description reaches logs and screens, and a body may hold tokens.
    let excerpt = redaction.maskFields(in: String(decoding: raw.body.prefix(200), as: UTF8.self))
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

  private func describe(_ request: URLRequest) -> String {
    "→ \(request.httpMethod ?? "GET") \(redaction.render(url: request.url)) "
      + "[\(redaction.render(headers: request.allHTTPHeaderFields ?? [:]))] \(redaction.render(body: request.httpBody))"
  }

  private func describe(_ raw: RawResponse, to request: URLRequest, after duration: Duration) -> String {
    let milliseconds = Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
    return "← \(raw.status) \(request.httpMethod ?? "GET") \(redaction.render(url: request.url)) "
      + "(\(String(format: "%.1f", milliseconds)) ms) [\(redaction.render(headers: raw.headers))] "
      + "\(redaction.render(body: raw.body))"
  }
}
