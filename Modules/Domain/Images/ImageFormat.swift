import Foundation
import Networking

/// Tells an image from anything else a server may answer 200 with (an HTML login page, a JSON error), so that the
/// loader neither returns nor caches it: the `Content-Type` says `image/…`, or the first bytes are those of a
/// common image format (Networking's one table of them, `MultipartFormData.sniffedContentType(_:)`).
enum ImageFormat {
  /// Whether `data`, sent with `contentType`, is an image.
  static func isImage(_ data: Data, contentType: String?) -> Bool {
    guard !data.isEmpty else { return false }
    if let contentType, contentType.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("image/") {
      return true
    }
    return MultipartFormData.sniffedContentType(data)?.hasPrefix("image/") == true
  }
}
