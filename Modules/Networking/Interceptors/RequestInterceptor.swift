import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A step every request passes through: it may change the request before each attempt (``adapt(_:context:)``) and
/// decide what happens after a failed one (``retry(after:context:)``). Interceptors compose in order: every one
/// adapts, and the first that does not answer ``RetryDecision/doNotRetry`` decides.
///
/// ```swift
/// import Foundation
/// #if canImport(FoundationNetworking)
///   import FoundationNetworking
/// #endif
///
/// struct UserAgent: RequestInterceptor {
///   func adapt(_ request: inout URLRequest, context: RequestContext) async throws {
///     request.setValue("MyApp/1.0", forHTTPHeaderField: "User-Agent")
///   }
/// }
/// ```
public protocol RequestInterceptor: Sendable {
  /// Changes the request this attempt sends; by default leaves it unchanged. The request is `inout` so that setting a
  /// header does not copy it.
  ///
  /// - Throws: to fail the request without sending it: a ``NetworkError`` or a `CancellationError` as it is,
  ///   anything else as `NetworkError.Kind.invalidRequest`.
  func adapt(_ request: inout URLRequest, context: RequestContext) async throws

  /// What to do after `failure`; by default ``RetryDecision/doNotRetry``.
  func retry(after failure: NetworkError, context: RequestContext) async -> RetryDecision
}

extension RequestInterceptor {
  /// Leaves the request as it is.
  public func adapt(_ request: inout URLRequest, context: RequestContext) async throws {}

  /// Leaves the decision to the others.
  public func retry(after failure: NetworkError, context: RequestContext) async -> RetryDecision { .doNotRetry }
}

/// What an interceptor decided after a failed attempt.
public enum RetryDecision: Sendable, Equatable {
  /// Fail with the error (unless another interceptor retries).
  case doNotRetry
  /// Send again now.
  case retry
  /// Send again after the delay.
  case retryAfter(Duration)
  /// Fail with this error instead.
  case fail(NetworkError)

  /// Two decisions are equal when they are the same case; `fail` compares the errors' kinds and descriptions.
  public static func == (lhs: RetryDecision, rhs: RetryDecision) -> Bool {
    switch (lhs, rhs) {
    case (.doNotRetry, .doNotRetry), (.retry, .retry): true
    case (.retryAfter(let a), .retryAfter(let b)): a == b
    case (.fail(let a), .fail(let b)): a.kind == b.kind && a.description == b.description
    default: false
    }
  }
}

/// What an interceptor knows about the request in flight.
public struct RequestContext: Sendable {
  /// The endpoint being called.
  public let endpoint: any Endpoint
  /// The attempt: 1 for the first send, 2 for the first retry, …, whoever asked for the retries.
  public let attempt: Int
  /// In ``RequestInterceptor/retry(after:context:)``, how many retries of this request the interceptor being asked
  /// has already decided: each interceptor counts its own, so that a retry for a 503 does not use up a retry that a
  /// token refresh needs.
  public internal(set) var ownRetries = 0
  /// In ``RequestInterceptor/retry(after:context:)``, the request as this attempt sent it, after every interceptor
  /// adapted it; `nil` if the attempt failed before it was sent (and in `adapt`, which receives it as an argument).
  public internal(set) var request: URLRequest?

  /// The caller's deadline, on the client's stopwatch.
  private let deadline: Duration?
  private let now: @Sendable () -> Duration

  init(endpoint: any Endpoint, attempt: Int, deadline: Duration?, now: @escaping @Sendable () -> Duration) {
    self.endpoint = endpoint
    self.attempt = attempt
    self.deadline = deadline
    self.now = now
  }

  /// The time left now before the caller's deadline, if the request has one; read it just before waiting, since
  /// every wait before uses some of it.
  public var remaining: Duration? { deadline.map { $0 - now() } }
}
