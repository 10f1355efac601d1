import Foundation

/// An error as the server described it in its response body.
public struct ServerError: Hashable, Sendable, CustomStringConvertible {
  /// The server's code, such as `400201` or `E05`.
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
/// ``HTTPClient`` tries its decoders in order on every error response; it has none unless given some, since each
/// backend has its own shape: ``JSONServerErrorDecoder`` reads the common one, a JSON object with a code and a
/// message.
///
/// ```swift
/// let client = HTTPClient(serverErrorDecoders: [JSONServerErrorDecoder(codeField: "code")])
/// ```
public protocol ServerErrorDecoder: Sendable {
  /// The error described by `body`, or `nil` if this decoder does not recognise it.
  func serverError(status: Int, body: Data) -> ServerError?
}

/// An error body that is one JSON object with its code in ``codeField`` (a string or an integer) and its message in
/// ``messageField``, such as `{"code":"E05","message":"Access token expired."}`; with ``flagField``, only an object
/// whose flag is `true` (`{"error":true,"code":400201,…}`) counts.
///
/// ```swift
/// import Foundation
///
/// let decoder = JSONServerErrorDecoder(codeField: "code", requiring: "error")
/// let body = Data(#"{"error":true,"code":400201,"message":"Not found."}"#.utf8)
/// let error = decoder.serverError(status: 400, body: body)
/// print(error == ServerError(code: "400201", message: "Not found.", status: 400))   // true
/// ```
public struct JSONServerErrorDecoder: ServerErrorDecoder {
  /// The field that holds the code.
  public let codeField: String
  /// The field that holds the message; a missing message reads as empty.
  public let messageField: String
  /// A field that must be `true` for the body to count as an error, if any.
  public let flagField: String?

  /// A decoder of bodies with their code in `codeField` and their message in `messageField`, and, when
  /// `flagField` is given, that field `true`.
  public init(codeField: String, messageField: String = "message", requiring flagField: String? = nil) {
    self.codeField = codeField
    self.messageField = messageField
    self.flagField = flagField
  }

  /// The error, if `body` is an object of this shape.
  public func serverError(status: Int, body: Data) -> ServerError? {
    guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { return nil }
    if let flagField, (object[flagField] as? Bool) != true { return nil }
    let code: String
    switch object[codeField] {
    case let text as String: code = text
    case let number as NSNumber where number.doubleValue == number.doubleValue.rounded():
      code = String(number.int64Value)
    default: return nil
    }
    return ServerError(code: code, message: object[messageField] as? String ?? "", status: status)
  }
}
