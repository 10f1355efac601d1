import Foundation

/// An error as the server described it in its response body.
public struct ServerError: Hashable, Sendable, CustomStringConvertible {
  /// The server's code: `400201` for Sendbird, `E05` for the chat backend.
  public let code: String
  /// The server's message.
  public let message: String
  /// The HTTP status it came with.
  public let status: Int

  /// A server error.
  public init(code: String, message: String, status: Int) {
    self.code = code
    self.message = message
    self.status = status
  }

  /// For example `400201 (HTTP 400): "User" not found.`
  public var description: String { "\(code) (HTTP \(status)): \(message)" }
}

/// Reads a server's error body into a ``ServerError`` (REQUIREMENTS A3); `nil` when the body is not in its shape.
///
/// ```swift
/// let client = HTTPClient(serverErrorDecoders: [.sendbird, .chatBackend])
/// ```
public protocol ServerErrorDecoder: Sendable {
  /// The error described by `body`, or `nil` if this decoder does not recognise it.
  func serverError(status: Int, body: Data) -> ServerError?
}

/// The Sendbird Platform API's errors: `{"error":true,"code":400201,"message":"…"}`.
public struct SendbirdErrorDecoder: ServerErrorDecoder {
  /// A decoder.
  public init() {}

  private struct Body: Decodable {
    let error: Bool
    let code: Int
    let message: String
  }

  /// The error, if `body` is a Sendbird error object.
  public func serverError(status: Int, body: Data) -> ServerError? {
    guard let decoded = try? JSONDecoder().decode(Body.self, from: body), decoded.error else { return nil }
    return ServerError(code: String(decoded.code), message: decoded.message, status: status)
  }
}

/// The chat backends' errors: `{"errorCode":"E05","message":"…"}`.
public struct ChatBackendErrorDecoder: ServerErrorDecoder {
  /// A decoder.
  public init() {}

  private struct Body: Decodable {
    let errorCode: String
    let message: String?
  }

  /// The error, if `body` is a chat-backend error object.
  public func serverError(status: Int, body: Data) -> ServerError? {
    guard let decoded = try? JSONDecoder().decode(Body.self, from: body) else { return nil }
    return ServerError(code: decoded.errorCode, message: decoded.message ?? "", status: status)
  }
}

extension ServerErrorDecoder where Self == SendbirdErrorDecoder {
  /// The Sendbird Platform API's error shape.
  public static var sendbird: SendbirdErrorDecoder { SendbirdErrorDecoder() }
}

extension ServerErrorDecoder where Self == ChatBackendErrorDecoder {
  /// The chat backends' error shape.
  public static var chatBackend: ChatBackendErrorDecoder { ChatBackendErrorDecoder() }
}
