/// Sends ``Request``s and calls back with their results (Sendbird-compatible surface, REQUIREMENTS U12).
public protocol SBNetworkClient: Sendable {
  /// Sends `request` and calls `completionHandler` once with its response or its error.
  func request<R: Request>(request: R, completionHandler: @escaping @Sendable (Result<R.Response, any Error>) -> Void)
}
