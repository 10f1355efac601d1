import Foundation
import KeelErrors
import RateLimiting

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Admits every attempt through rate limiters before it is sent: a global limiter, a limiter per endpoint, or both.
///
/// Every attempt counts, retries included, because each one reaches the server. When a limiter refuses (its waiting
/// queue is full, or the wait would pass the request's deadline) the request fails with
/// `NetworkError.Kind.rateLimited` and nothing is sent; the limiter's `RateLimitError` is its
/// ``NetworkError/underlying`` error.
///
/// ```swift
/// import RateLimiting
///
/// // One request per second, at most 10 waiting (REQUIREMENTS U8).
/// let client = HTTPClient(interceptors: [RateLimitInterceptor(LeakyBucket(rate: .perSecond(1), capacity: 10))])
///
/// // 5 per second for each route, 20 per second in all.
/// let limits = KeyedRateLimiter<String>(global: TokenBucket(rate: .perSecond(20), burst: 20)) { _ in
///   TokenBucket(rate: .perSecond(5), burst: 5)
/// }
/// let perRoute = RateLimitInterceptor(limits) { endpoint in
///   "\(endpoint.method) \(endpoint.path.segments.prefix(2).joined(separator: "/"))"   // such as GET v3/users
/// }
/// ```
public struct RateLimitInterceptor: RequestInterceptor {
  /// Names the endpoint's limiter in a `KeyedRateLimiter`.
  public typealias Key = @Sendable (any Endpoint) -> String

  private let keyed: KeyedRateLimiter<String>?
  private let key: Key
  private let global: (any RateLimiter)?

  /// Admits every attempt through `limiter`.
  public init(_ limiter: any RateLimiter) {
    keyed = nil
    key = Self.methodAndPath
    global = limiter
  }

  /// Admits every attempt through its endpoint's limiter in `limits`, then through `limits.global` if there is one.
  ///
  /// - Parameters:
  ///   - limits: The limiters, one per key.
  ///   - key: The key of an endpoint; by default its method and path, such as `GET /v3/users/alice`. Routes whose
  ///     path holds an identifier usually want a coarser key, such as the router's case.
  public init(_ limits: KeyedRateLimiter<String>, key: @escaping Key = Self.methodAndPath) {
    keyed = limits
    self.key = key
    global = limits.global
  }

  /// The default key: the method and the path, such as `GET /v3/users/alice`.
  public static let methodAndPath: Key = { "\($0.method) \($0.path)" }

  /// Waits for a permit from each limiter in turn, never past the request's deadline.
  ///
  /// - Throws: ``NetworkError`` of kind `NetworkError.Kind.rateLimited` when a limiter refuses, or
  ///   `CancellationError` when the task is cancelled while waiting.
  public func adapt(_ request: inout URLRequest, context: RequestContext) async throws {
    if let keyed { try await admit(through: keyed.limiter(for: key(context.endpoint)), context: context) }
    if let global { try await admit(through: global, context: context) }
  }

  private func admit(through limiter: any RateLimiter, context: RequestContext) async throws {
    do {
      if let remaining = context.remaining {
        try await limiter.acquire(cost: 1, maxWait: max(remaining, .zero))
      } else {
        try await limiter.acquire(cost: 1)
      }
    } catch let refusal as RateLimitError {
      throw Self.error(refusing: context.endpoint, because: refusal)
    }
  }

  /// The error a request refused by a limiter fails with: `NetworkError.Kind.rateLimited`, naming the endpoint, with
  /// the limiter's `refusal` as its ``NetworkError/underlying`` error. For interceptors that admit in their own way.
  public static func error(refusing endpoint: any Endpoint, because refusal: RateLimitError) -> NetworkError {
    var error = NetworkError(
      .rateLimited, "Rate limited: \(endpoint.method) \(endpoint.path) was not sent (\(refusal.description.clause)).")
    error.underlying = refusal
    return error
  }
}
