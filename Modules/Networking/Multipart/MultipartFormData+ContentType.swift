import Foundation

extension MultipartFormData {
  /// The content type of a file that starts with `prefix` (its first 16 bytes or fewer) and has the extension
  /// `pathExtension`: what its bytes say for the formats a chat or an API client attaches most (an image renamed
  /// `.txt` is still an image), else what its extension says, else `application/octet-stream`.
  public static func contentType(sniffing prefix: Data, pathExtension: String) -> String {
    let bytes = [UInt8](prefix.prefix(16))
    func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
      bytes.count >= offset + signature.count && Array(bytes[offset..<offset + signature.count]) == signature
    }
    if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
    if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
    if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
    if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
    if starts(Array("ftyp".utf8), at: 4), ["heic", "heix", "mif1"].contains(where: { starts(Array($0.utf8), at: 8) }) {
      return "image/heic"
    }
    if starts(Array("%PDF-".utf8)) { return "application/pdf" }
    return typesByExtension[pathExtension.lowercased()] ?? "application/octet-stream"
  }

  private static let typesByExtension: [String: String] = [
    "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
    "heic": "image/heic", "pdf": "application/pdf", "txt": "text/plain", "json": "application/json",
    "csv": "text/csv", "mp4": "video/mp4", "mov": "video/quicktime", "m4a": "audio/mp4", "mp3": "audio/mpeg",
  ]
}
