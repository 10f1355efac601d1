import Foundation

/// Tells an image from anything else a server may answer 200 with (an HTML login page, a JSON error), so that the
/// loader neither returns nor caches it: the `Content-Type` says `image/…`, or the first bytes are those of a
/// common image format.
enum ImageFormat {
  /// Whether `data`, sent with `contentType`, is an image.
  static func isImage(_ data: Data, contentType: String?) -> Bool {
    guard !data.isEmpty else { return false }
    if let contentType, contentType.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("image/") {
      return true
    }
    return signatures.contains { signature in
      data.count >= signature.offset + signature.bytes.count
        && data.dropFirst(signature.offset).starts(with: signature.bytes)
    }
  }

  /// Magic numbers: PNG, JPEG, GIF, WebP (`WEBP` at 8), BMP, TIFF (both byte orders), ICO, and HEIF/AVIF (`ftyp`
  /// at 4).
  private static let signatures: [(offset: Int, bytes: [UInt8])] = [
    (0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
    (0, [0xFF, 0xD8, 0xFF]),
    (0, Array("GIF8".utf8)),
    (8, Array("WEBP".utf8)),
    (0, Array("BM".utf8)),
    (0, [0x49, 0x49, 0x2A, 0x00]),
    (0, [0x4D, 0x4D, 0x00, 0x2A]),
    (0, [0x00, 0x00, 0x01, 0x00]),
    (4, Array("ftyp".utf8)),
  ]
}
