/// An HTTP request method.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The method's name, for example `GET`.
  public let rawValue: String

  /// A method by name; names are case-sensitive and conventionally upper case.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// `GET`
  public static let get = HTTPMethod(rawValue: "GET")
  /// `HEAD`
  public static let head = HTTPMethod(rawValue: "HEAD")
  /// `POST`
  public static let post = HTTPMethod(rawValue: "POST")
  /// `PUT`
  public static let put = HTTPMethod(rawValue: "PUT")
  /// `PATCH`
  public static let patch = HTTPMethod(rawValue: "PATCH")
  /// `DELETE`
  public static let delete = HTTPMethod(rawValue: "DELETE")
  /// `OPTIONS`
  public static let options = HTTPMethod(rawValue: "OPTIONS")

  /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2), which is what makes a
  /// retry safe by default.
  public var isIdempotent: Bool { [.get, .head, .put, .delete, .options].contains(self) }

  /// The method's name.
  public var description: String { rawValue }
}
