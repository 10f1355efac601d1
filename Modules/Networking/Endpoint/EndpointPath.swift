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
  public var encoded: String {
    guard !segments.isEmpty else { return "/" }
    var path = ""
    for segment in segments {
      path += "/"
      path += PercentEncoding.pathSegment(segment)
    }
    return path
  }

  /// The encoded path.
  public var description: String { encoded }
}

/// RFC 3986 percent-encoding that leaves only unreserved characters as they are, so that `/`, `?`, `&`, `=`, `+`, `#`
/// and spaces in values can never change the meaning of a URL.
enum PercentEncoding {
  /// Bit `b` of word `b / 64` is set when byte `b` is unreserved (ASCII letters, digits, `-`, `.`, `_`, `~`).
  private static let unreserved: (UInt64, UInt64) = {
    var words: (UInt64, UInt64) = (0, 0)
    for byte in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8 {
      if byte < 64 { words.0 |= 1 << UInt64(byte) } else { words.1 |= 1 << UInt64(byte - 64) }
    }
    return words
  }()

  static func pathSegment(_ value: String) -> String { encode(value) }

  static func queryComponent(_ value: String) -> String { encode(value) }

  private static func isUnreserved(_ byte: UInt8) -> Bool {
    byte < 64 ? unreserved.0 & (1 << UInt64(byte)) != 0 : byte < 128 && unreserved.1 & (1 << UInt64(byte - 64)) != 0
  }

  private static func encode(_ value: String) -> String {
    // Most segments and values (ids, names of fields) need no encoding: they are returned as they are.
    guard !value.utf8.allSatisfy(isUnreserved) else { return value }
    let hex = Array("0123456789ABCDEF".utf8)
    var encoded = [UInt8]()
    encoded.reserveCapacity(value.utf8.count * 3)
    for byte in value.utf8 {
      if isUnreserved(byte) {
        encoded.append(byte)
      } else {
        encoded.append(UInt8(ascii: "%"))
        encoded.append(hex[Int(byte >> 4)])
        encoded.append(hex[Int(byte & 0xF)])
      }
    }
    return String(decoding: encoded, as: UTF8.self)
  }
}
