import Dispatch
import Networking

/// Sends ``SendbirdRequest``s for a ``UserManager``'s current application, through its rate limiter (REQUIREMENTS
/// U8, U12). Completion handlers are called on the client's callback queue, one at a time (U9).
///
/// A ``Request`` that is not a ``SendbirdRequest`` fails with a ``UserManagerError`` of kind
/// `UserManagerError.Kind.validation`; nothing is sent.
public final class SendbirdNetworkClient: SBNetworkClient {
  private let manager: UserManager
  private let callbacks: DispatchQueue
  private let line: CallLine

  /// A client that sends through `manager`, calling back on `callbackQueue` (a serial queue).
  ///
  /// Requests take their places in line in the order they are made (L1).
  public convenience init(manager: UserManager, callbackQueue: DispatchQueue) {
    self.init(manager: manager, callbackQueue: callbackQueue, line: CallLine())
  }

  /// A client whose requests queue in `line`, with the facade's own calls.
  init(manager: UserManager, callbackQueue: DispatchQueue, line: CallLine) {
    self.manager = manager
    callbacks = callbackQueue
    self.line = line
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
    line.submit {
      let place: ReservedPlace?
      do {
        place = try await manager.enterLine(for: request.route)
      } catch {
        return callbacks.async { completionHandler(.failure(error)) }
      }
      Task { await Self.finish(request, through: manager, holding: place, callbacks: callbacks, completionHandler) }
    }
  }

  private static func finish<Response: Sendable>(
    _ request: any SendbirdRequest, through manager: UserManager, holding place: ReservedPlace?,
    callbacks: DispatchQueue, _ completionHandler: @escaping @Sendable (Result<Response, any Error>) -> Void
  ) async {
    let result: Result<Response, any Error>
    do {
      let response = try await manager.run(holding: place) { try await Self.send(request, through: manager) }
      if let response = response as? Response {
        result = .success(response)
      } else {
        let mismatch = NetworkError(
          .decoding, "\(type(of: request)) answered \(type(of: response)), not \(Response.self).")
        result = .failure(UserManagerError.requestFailed(RequestFailure(mismatch)))
      }
    } catch {
      result = .failure(error)
    }
    callbacks.async { completionHandler(result) }
  }

  private static func send<S: SendbirdRequest>(_ request: S, through manager: UserManager) async throws -> S.Response {
    try await manager.send(request.route) { try request.decode($0) }
  }
}
