import Crypto
import Foundation
import HTTPTypes
import KeelBasics

/// The images of chat messages, held in memory by id, each with the `ETag` it is served with (SandboxAPI §7).
/// Bounded in total: past ``maxTotalSize`` a send is refused (E507) rather than grow the process.
final class ChatImages: Sendable {
  struct Image: Sendable {
    /// The conversation whose message carries it: only its members may fetch it.
    let conversationID: String
    let data: Data
    let contentType: String
    let etag: String
  }

  /// The most bytes of images held at once.
  static let maxTotalSize = 256 << 20

  private let images = Locked([String: Image]())

  /// Keeps `data` as the image `id` of a message in `conversationID`.
  ///
  /// - Throws: E507 when the images held would pass ``maxTotalSize``.
  func store(_ data: Data, contentType: String, conversationID: String, as id: String) throws {
    let digest = SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined()
    try images.withLock { images in
      let total = images.values.reduce(0) { $0 + $1.data.count }
      guard total + data.count <= Self.maxTotalSize else { throw BackendError.full("images") }
      images[id] = Image(conversationID: conversationID, data: data, contentType: contentType, etag: "\"\(digest)\"")
    }
  }

  /// The image `id`.
  func image(_ id: String) -> Image? { images.withLock { $0[id] } }

  /// Forgets the images `ids`.
  func remove(_ ids: [String]) { images.withLock { images in for id in ids { images[id] = nil } } }

  /// Forgets every image.
  func reset() { images.withLock { $0 = [:] } }

  /// `image` as an answer: its bytes, `Content-Type`, `ETag` and `Cache-Control: private, max-age=3600`; 304 with
  /// no body when `ifNoneMatch` is its tag.
  static func response(_ image: Image, ifNoneMatch: String?) -> SandboxResponse {
    var headers: HTTPFields = [
      .contentType: image.contentType, .eTag: image.etag, .cacheControl: "private, max-age=3600",
    ]
    if ifNoneMatch == image.etag {
      headers[.contentType] = nil
      return SandboxResponse(status: .notModified, body: Data(), headers: headers)
    }
    return SandboxResponse(status: .ok, body: image.data, headers: headers)
  }

  /// The image type `data` starts like (PNG, JPEG, GIF, WebP), or `nil` for anything else.
  static func imageType(of data: Data) -> String? {
    let bytes = [UInt8](data.prefix(12))
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
    if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
    if bytes.starts(with: Array("GIF8".utf8)) { return "image/gif" }
    if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
      return "image/webp"
    }
    return nil
  }
}
