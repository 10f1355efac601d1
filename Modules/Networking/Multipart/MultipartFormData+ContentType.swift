import Foundation

extension MultipartFormData {
  /// The content type of a file that starts with `prefix` (its first 16 bytes or fewer) and has the extension
  /// `pathExtension`: what its bytes say for the formats a chat, an API client or an image loader meets most (PNG,
  /// JPEG, GIF, WebP, HEIC and AVIF, BMP, TIFF, ICO, PDF: an image renamed `.txt` is still an image), else what its
  /// extension says, else `application/octet-stream`.
  public static func contentType(sniffing prefix: Data, pathExtension: String) -> String {
    sniffedContentType(prefix) ?? typesByExtension[pathExtension.lowercased()] ?? "application/octet-stream"
  }

  /// The content type the first bytes of `data` say (16 are read at most), for the formats a chat, an API client or
  /// an image loader meets most: PNG, JPEG, GIF, WebP, HEIC and AVIF, BMP, TIFF, ICO, PDF; `nil` for anything else.
  /// Keel's one table of magic numbers: the uploads, the image loader and the Sandbox all read it.
  package static func sniffedContentType(_ data: Data) -> String? {
    let bytes = [UInt8](data.prefix(16))
    func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
      bytes.count >= offset + signature.count && Array(bytes[offset..<offset + signature.count]) == signature
    }
    func brand(_ brands: String...) -> Bool {
      starts(Array("ftyp".utf8), at: 4) && brands.contains { starts(Array($0.utf8), at: 8) }
    }
    if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
    if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
    if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
    if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
    if brand("heic", "heix", "hevc", "mif1", "msf1") { return "image/heic" }
    if brand("avif", "avis") { return "image/avif" }
    if starts(Array("BM".utf8)) { return "image/bmp" }
    if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "image/tiff" }
    if starts([0x00, 0x00, 0x01, 0x00]) { return "image/x-icon" }
    if starts(Array("%PDF-".utf8)) { return "application/pdf" }
    return nil
  }

  private static let typesByExtension: [String: String] = [
    "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
    "heic": "image/heic", "pdf": "application/pdf", "txt": "text/plain", "json": "application/json",
    "csv": "text/csv", "mp4": "video/mp4", "mov": "video/quicktime", "m4a": "audio/mp4", "mp3": "audio/mpeg",
  ]
}
