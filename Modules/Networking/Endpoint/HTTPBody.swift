import Foundation

/// The body of a request, encoded when the request is built, so that a value that cannot be encoded is a
/// ``NetworkError`` before anything is sent.
public struct HTTPBody: Sendable {
  /// The `Content-Type` it is sent with, if any.
  public let contentType: String?
  let encode: @Sendable () throws -> Data?

  /// No body.
  public static let empty = HTTPBody(contentType: nil) { nil }

  /// Raw bytes.
  public static func data(_ data: Data, contentType: String = "application/octet-stream") -> HTTPBody {
    HTTPBody(contentType: contentType) { data }
  }

  /// `value` as JSON, encoded by a fresh encoder from `makeEncoder` (for example one with snake_case keys).
  public static func json<Value: Encodable & Sendable>(
    _ value: Value, encoder makeEncoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() }
  ) -> HTTPBody {
    HTTPBody(contentType: "application/json") { try makeEncoder().encode(value) }
  }

  private init(contentType: String?, encode: @escaping @Sendable () throws -> Data?) {
    self.contentType = contentType
    self.encode = encode
  }
}
