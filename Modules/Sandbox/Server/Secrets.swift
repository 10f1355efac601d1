import Crypto
import Foundation

/// How the Sandbox handles the secrets it is given or issues: it keeps only their SHA-256 digests (so that its state
/// file holds no token a reader could use), and compares presented keys in constant time.
enum Secrets {
  /// The hex SHA-256 digest of `secret`: what the Sandbox keeps in place of an API token, an access token or a
  /// refresh token.
  static func digest(_ secret: String) -> String {
    // Hashed from the string's own bytes and written digit by digit into one string: every request's tenant is found
    // by it, so no array is made on the way.
    var secret = secret
    var hasher = SHA256()
    secret.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
    let digest = hasher.finalize()
    return digest.withUnsafeBytes { bytes in
      String(unsafeUninitializedCapacity: SHA256.Digest.byteCount * 2) { buffer in
        var index = 0
        for byte in bytes {
          buffer[index] = hexDigits[Int(byte >> 4)]
          buffer[index + 1] = hexDigits[Int(byte & 0xF)]
          index += 2
        }
        return index
      }
    }
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)

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
