import Crypto
import Foundation

/// How the Sandbox handles the secrets it is given or issues: it keeps only their SHA-256 digests (so that its state
/// file holds no token a reader could use), and compares presented keys in constant time.
enum Secrets {
  /// The hex SHA-256 digest of `secret`: what the Sandbox keeps in place of an API token, an access token or a
  /// refresh token.
  static func digest(_ secret: String) -> String {
    SHA256.hash(data: Data(secret.utf8)).map { byte in
      let hex = String(byte, radix: 16)
      return byte < 16 ? "0" + hex : hex
    }.joined()
  }

  /// Whether `presented` is `expected`, in time that does not depend on where they differ.
  static func matches(_ presented: String?, _ expected: String) -> Bool {
    guard let presented else { return false }
    let left = Array(presented.utf8)
    let right = Array(expected.utf8)
    var difference = UInt8(left.count == right.count ? 0 : 1)
    for index in 0..<right.count { difference |= right[index] ^ (index < left.count ? left[index] : 0) }
    return difference == 0
  }
}
