import Foundation

/// The body of a request, encoded when the request is built, so that a value that cannot be encoded is a
/// ``NetworkError`` before anything is sent.
public struct HTTPBody: Sendable {
  /// The `Content-Type` it is sent with, if any.
  public let contentType: String?
  let encode: @Sendable () throws -> Data?
  /// The file the body is read from as it is sent, for ``file(_:contentType:)``.
  public let file: URL?

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

  /// The contents of the file at `url`, read from disk as they are sent rather than held in memory: a multipart body
  /// that `MultipartFormData` wrote (images), any large upload. `HTTPClient` sends it through the transport's
  /// ``FileTransferTransport/upload(_:fromFile:)``, so every interceptor (token refresh, retries) applies to it, and
  /// refuses it with `NetworkError.Kind.invalidRequest` before sending when the transport cannot stream a file.
  public static func file(_ url: URL, contentType: String) -> HTTPBody {
    HTTPBody(contentType: contentType, file: url) { nil }
  }

  private init(contentType: String?, file: URL? = nil, encode: @escaping @Sendable () throws -> Data?) {
    self.contentType = contentType
    self.file = file
    self.encode = encode
  }
}
