import Crypto
import Foundation
import HTTPTypes
import KeelConcurrency
import KeelFiles
import Networking

/// The images and files of chat messages and the profile images, by id, each with the `ETag` it is served with
/// (SandboxAPI §7): in memory, or with a directory (the embedded Sandbox's state directory) one owner-only file each,
/// kept between runs like the messages that carry them. Bounded in total: past ``maxTotalSize`` a send is refused
/// (E507) rather than grow the process or the disk.
final class ChatBlobs: Sendable {
  struct Image: Sendable {
    /// The conversation whose message carries it (``ChatBackend/profileScope`` for a profile image): only its
    /// members may fetch it.
    let conversationID: String
    let data: Data
    let contentType: String
    let etag: String
  }

  /// What is known of an image without reading it; its bytes too when there is no directory.
  private struct Entry: Sendable {
    let conversationID: String
    let contentType: String
    let etag: String
    let size: Int
    let data: Data?
  }

  /// The most bytes of images and files held at once.
  static let maxTotalSize = 1 << 30

  /// Where the images are kept, one file each; `nil` keeps them in memory.
  let directory: URL?
  private let entries: Locked<[String: Entry]>

  /// Images and files in memory, or in `directory`, whose files an earlier run left are read back (their names say
  /// whose and what type each is; anything else there is left alone).
  init(directory: URL? = nil) {
    self.directory = directory
    var found: [String: Entry] = [:]
    if let directory {
      try? OwnerOnlyFiles.makeDirectory(directory)
      let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
      for name in names {
        guard let (id, conversationID, type) = Self.parse(name),
          let data = try? Data(contentsOf: directory.appendingPathComponent(name))
        else { continue }
        found[id] = Entry(
          conversationID: conversationID, contentType: type, etag: Self.etag(data), size: data.count, data: nil)
      }
    }
    entries = Locked(found)
  }

  /// Keeps `data` as the image or file `id` of a message in `conversationID`.
  ///
  /// - Throws: E507 when what is held would pass ``maxTotalSize``, or the directory cannot take the file.
  func store(_ data: Data, contentType: String, conversationID: String, as id: String) throws {
    let entry = Entry(
      conversationID: conversationID, contentType: contentType, etag: Self.etag(data), size: data.count,
      data: directory == nil ? data : nil)
    try entries.withLock { entries in
      let total = entries.values.reduce(0) { $0 + $1.size }
      guard total + data.count <= Self.maxTotalSize else { throw BackendError.full("images and files") }
      if let directory {
        do {
          try OwnerOnlyFiles.write(data, to: Self.file(id, entry, in: directory), synchronously: false)
        } catch {
          throw BackendError.full("images and files")
        }
      }
      entries[id] = entry
    }
  }

  /// The image or file `id`.
  func blob(_ id: String) -> Image? {
    guard let entry = entries.withLock({ $0[id] }) else { return nil }
    let data: Data?
    if let directory {
      data = try? Data(contentsOf: Self.file(id, entry, in: directory))
    } else {
      data = entry.data
    }
    return data.map {
      Image(conversationID: entry.conversationID, data: $0, contentType: entry.contentType, etag: entry.etag)
    }
  }

  /// Forgets the images and files `ids`.
  func remove(_ ids: [String]) {
    let removed = entries.withLock { entries in
      ids.compactMap { id in entries.removeValue(forKey: id).map { (id, $0) } }
    }
    guard let directory else { return }
    for (id, entry) in removed { try? FileManager.default.removeItem(at: Self.file(id, entry, in: directory)) }
  }

  /// Forgets every image and file.
  func reset() { remove(entries.withLock { Array($0.keys) }) }

  /// A blob's file: `<id>~<conversation>.<type>`, the conversation `_` for a profile image; the type is an image's
  /// subtype (`png`), or any other type percent-encoded whole (`application%2Fpdf`).
  private static func file(_ id: String, _ entry: Entry, in directory: URL) -> URL {
    let scope = entry.conversationID.isEmpty ? "_" : entry.conversationID
    let type =
      acceptedTypes.contains(entry.contentType)
      ? String(entry.contentType.dropFirst("image/".count))
      : entry.contentType.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "application%2Foctet-stream"
    return directory.appendingPathComponent("\(id)~\(scope).\(type)")
  }

  /// The id, conversation and content type a file's name holds, or `nil` for a name that is not a blob's.
  private static func parse(_ name: String) -> (String, String, String)? {
    let parts = name.split(separator: "~", maxSplits: 1)
    guard parts.count == 2, let dot = parts[1].lastIndex(of: ".") else { return nil }
    let scope = String(parts[1][..<dot])
    let encoded = String(parts[1][parts[1].index(after: dot)...])
    let type = encoded.contains("%") ? encoded.removingPercentEncoding ?? "" : "image/" + encoded
    guard encoded.contains("%") ? fileType(type) == type : acceptedTypes.contains(type), !scope.isEmpty else {
      return nil
    }
    return (String(parts[0]), scope == "_" ? "" : scope, type)
  }

  /// A file's content type as given when it is one (`type/subtype`, letters, digits and `.+-_` only, 127 bytes at
  /// most, lowercased; parameters dropped), `application/octet-stream` otherwise.
  static func fileType(_ given: String?) -> String {
    let type = (given ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.+-_")
    guard let type, type.utf8.count <= 127 else { return "application/octet-stream" }
    let halves = type.split(separator: "/", omittingEmptySubsequences: false)
    guard halves.count == 2, halves.allSatisfy({ !$0.isEmpty && $0.allSatisfy(allowed.contains) }) else {
      return "application/octet-stream"
    }
    return type
  }

  private static func etag(_ data: Data) -> String {
    "\"" + SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
  }

  /// `image` (or a file) as an answer: its bytes, `Content-Type`, `ETag` and `Cache-Control: private, max-age=3600`;
  /// 304 with no body when `ifNoneMatch` is its tag.
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

  /// The image types the chat takes (SandboxAPI §7).
  static let acceptedTypes: Set<String> = ["image/png", "image/jpeg", "image/gif", "image/webp"]

  /// The image type `data` starts like, when the chat takes it (``acceptedTypes``), or `nil` for anything else.
  static func imageType(of data: Data) -> String? {
    MultipartFormData.sniffedContentType(data).flatMap { acceptedTypes.contains($0) ? $0 : nil }
  }
}
