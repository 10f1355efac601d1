/// The path of an endpoint, as segments that are percent-encoded one by one, so that an id such as `a/b` stays one
/// segment (`a%2Fb`) instead of becoming two.
///
/// ```swift
/// let userID = "ana/maría"
/// let users: EndpointPath = "/v3/users"             // fixed segments from a literal, split on "/"
/// let user: EndpointPath = ["v3", "users", userID]  // a user-supplied segment, encoded as one
/// print(users, user)                                // /v3/users /v3/users/ana%2Fmar%C3%ADa
/// ```
public struct EndpointPath: Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
  CustomStringConvertible
{
  /// The segments, not yet encoded.
  public var segments: [String]

  /// A path of `segments`, each encoded as one segment.
  public init(_ segments: [String]) { self.segments = segments }

  /// A path literal such as `/v3/users`, split on `/`; empty segments are dropped.
  public init(stringLiteral value: String) { segments = value.split(separator: "/").map(String.init) }

  /// A path of literal segments, each encoded as one segment.
  public init(arrayLiteral elements: String...) { segments = elements }

  /// This path with `segment` appended.
  public func appending(_ segment: String) -> EndpointPath { EndpointPath(segments + [segment]) }

  /// The encoded path, with a leading `/`.
  public var encoded: String { "/" + segments.map(PercentEncoding.pathSegment).joined(separator: "/") }

  /// The encoded path.
  public var description: String { encoded }
}

/// RFC 3986 percent-encoding that leaves only unreserved characters as they are, so that `/`, `?`, `&`, `=`, `+`, `#`
/// and spaces in values can never change the meaning of a URL.
enum PercentEncoding {
  private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

  static func pathSegment(_ value: String) -> String { encode(value) }

  static func queryComponent(_ value: String) -> String { encode(value) }

  private static func encode(_ value: String) -> String {
    var encoded = ""
    encoded.reserveCapacity(value.utf8.count)
    for byte in value.utf8 {
      if unreserved.contains(byte) {
        encoded.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        encoded += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
      }
    }
    return encoded
  }
}
