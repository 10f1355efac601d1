import Dispatch
import Networking

/// Sends ``SendbirdRequest``s for a ``UserManager``'s current application, through its rate limiter (REQUIREMENTS
/// U8, U12). Completion handlers are called on the client's callback queue, one at a time (U9).
///
/// A ``Request`` that is not a ``SendbirdRequest`` fails with a ``UserManagerError`` of kind
/// ``UserManagerError/Kind/validation``; nothing is sent.
public final class SendbirdNetworkClient: SBNetworkClient {
  private let manager: UserManager
  private let callbacks: DispatchQueue

  /// A client that sends through `manager`, calling back on `callbackQueue` (a serial queue).
  public init(manager: UserManager, callbackQueue: DispatchQueue) {
    self.manager = manager
    callbacks = callbackQueue
  }

  /// Sends `request` and calls `completionHandler` once, on the callback queue.
  public func request<R: Request>(
    request: R, completionHandler: @escaping @Sendable (Result<R.Response, any Error>) -> Void
  ) {
    guard let request = request as? any SendbirdRequest else {
      let error = UserManagerError.validation(
        field: "request", "\(R.self) is not a SendbirdRequest: the client cannot tell where to send it.")
      callbacks.async { completionHandler(.failure(error)) }
      return
    }
    let manager = manager
    let callbacks = callbacks
    Task {
      let result: Result<R.Response, any Error>
      do {
        let response = try await Self.send(request, through: manager)
        if let response = response as? R.Response {
          result = .success(response)
        } else {
          let mismatch = NetworkError(.decoding, "\(R.self) answered \(type(of: response)), not \(R.Response.self).")
          result = .failure(UserManagerError.requestFailed(RequestFailure(mismatch)))
        }
      } catch {
        result = .failure(error)
      }
      callbacks.async { completionHandler(result) }
    }
  }

  private static func send<S: SendbirdRequest>(_ request: S, through manager: UserManager) async throws -> S.Response {
    try await manager.send(request.route) { try request.decode($0) }
  }
}
