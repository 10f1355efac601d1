import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Retries failures that are likely to pass (REQUIREMENTS E4): exponential backoff with full jitter, only for
/// idempotent methods unless told otherwise, honouring the server's `Retry-After`, never past the caller's deadline.
///
/// ```swift
/// let client = HTTPClient(interceptors: [RetryPolicy()])            // 2 retries, 0.5 s base, 30 s cap
/// let eager = RetryPolicy(maxRetries: 5, retriesNonIdempotent: true)
/// ```
public struct RetryPolicy: RequestInterceptor {
  /// How many times a request is sent again after its first attempt.
  public var maxRetries: Int
  /// The backoff before the first retry, before jitter; it doubles for each retry after.
  public var baseDelay: Duration
  /// The longest backoff, before jitter, and the longest wait a server may ask for in `Retry-After`: a request whose
  /// server asks for more fails at once, with the server's headers in the error.
  public var maxDelay: Duration
  /// Statuses worth retrying.
  public var retryableStatuses: Set<Int>
  /// Transport errors worth retrying.
  public var retryableTransportErrors: Set<URLError.Code>
  /// Whether POST and PATCH are retried too (when the server deduplicates, for example by an idempotency key). A 429
  /// is retried for every method regardless: the server refused it before doing anything.
  public var retriesNonIdempotent: Bool
  /// Draws the jitter: a number in [0, 1). Tests pass a seeded one.
  public var random: @Sendable () -> Double

  /// A policy; every parameter defaults to what suits most APIs.
  public init(
    maxRetries: Int = 2,
    baseDelay: Duration = .milliseconds(500),
    maxDelay: Duration = .seconds(30),
    retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504],
    retryableTransportErrors: Set<URLError.Code> = [
      .timedOut, .cannotConnectToHost, .networkConnectionLost, .notConnectedToInternet, .cannotFindHost,
      .dnsLookupFailed,
    ],
    retriesNonIdempotent: Bool = false,
    random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
  ) {
    self.maxRetries = maxRetries
    self.baseDelay = baseDelay
    self.maxDelay = maxDelay
    self.retryableStatuses = retryableStatuses
    self.retryableTransportErrors = retryableTransportErrors
    self.retriesNonIdempotent = retriesNonIdempotent
    self.random = random
  }

  /// Retries after the server's requested delay or a jittered backoff, when the failure, the method, the attempt
  /// count and the deadline all allow it.
  public func retry(after failure: NetworkError, context: RequestContext) async -> RetryDecision {
    guard context.ownRetries < maxRetries, isRetryable(failure),
      retriesNonIdempotent || context.endpoint.method.isIdempotent || failure.statusCode == 429
    else { return .doNotRetry }
    let delay: Duration
    if let asked = RetryAfter.delay(in: failure) {
      // Holding the caller longer than the longest backoff is worse than failing now; the error carries the
      // server's headers for a caller that wants to come back later.
      guard asked <= maxDelay else { return .doNotRetry }
      delay = asked
    } else {
      delay = backoff(beforeRetry: context.ownRetries + 1)
    }
    if let remaining = context.remaining, delay >= remaining { return .doNotRetry }
    return .retryAfter(delay)
  }

  /// Full jitter (AWS, "Exponential Backoff and Jitter"): a uniform draw in [0, min(maxDelay, base × 2^(n−1))].
  func backoff(beforeRetry retry: Int) -> Duration {
    let exponential = baseDelay * (1 << min(retry - 1, 30))
    return min(exponential, maxDelay) * random()
  }

  private func isRetryable(_ failure: NetworkError) -> Bool {
    switch failure.kind {
    case .transport: failure.urlError.map { retryableTransportErrors.contains($0.code) } ?? false
    case .server, .status: failure.statusCode.map(retryableStatuses.contains) ?? false
    default: false
    }
  }
}
