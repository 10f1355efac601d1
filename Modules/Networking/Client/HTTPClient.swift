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

  let logger: Logger
  let redaction: LogRedaction
  let now: @Sendable () -> Duration
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
  /// - Throws: ``NetworkError``: `NetworkError.Kind.invalidRequest` before anything is sent,
  ///   `NetworkError.Kind.transport`, `NetworkError.Kind.server` or `NetworkError.Kind.status` for an
  ///   unacceptable status, or `NetworkError.Kind.decoding`; `CancellationError` when the calling task is cancelled,
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
    let files = try fileTransport(for: request)
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
        var response = try await send(urlRequest, for: request, files: files)
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
}
