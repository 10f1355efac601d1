import Domain
import Foundation
import KeelErrors
import KeelFiles
import Networking

/// The outbox's checks of a new message and its copies of the message's images and files, which are what is sent,
/// whatever happens to the originals meanwhile.
extension ChatOutbox {
  /// Checks a message before anything is written or sent (``ChatService/validate(_:images:files:)``).
  static func validate(_ text: String, images: [URL], files: [URL] = []) throws {
    guard text.count <= maxTextLength, text.utf8.count <= maxTextBytes else {
      throw ChatError(
        .invalidInput,
        "A message's text has at most \(maxTextLength) characters and \(maxTextBytes) bytes of UTF-8, not "
          + "\(text.count) and \(text.utf8.count); nothing was sent.")
    }
    guard !images.isEmpty || !files.isEmpty || !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
      throw ChatError(.invalidInput, "A message needs a text, an image or a file; nothing was sent.")
    }
    do throws(MultipartError) {
      var form = MultipartFormData()
      for file in files { try form.append(fileAt: file, name: "files") }
      // The files alone against 50 MiB: their part headers are not the sender's to count.
      var size: Int64 = 0
      for file in files { size += try Self.size(of: file) }
      guard size <= fileLimits.maxBodySize else {
        throw MultipartError(
          .bodyTooLarge, "the files are \(size) bytes together, over \(fileLimits.maxBodySize >> 20) MiB")
      }
      var each = fileLimits
      each.maxBodySize = .max
      try form.validate(each)
    } catch {
      throw ChatError(.invalidInput, "Cannot send these files: \(error.description.clause); nothing was sent.")
    }
    do throws(MultipartError) {
      var form = MultipartFormData()
      for image in images { try form.append(fileAt: image, name: "images") }
      try form.validate(limits)
    } catch {
      throw ChatError(.invalidInput, "Cannot send these images: \(error.description.clause); nothing was sent.")
    }
    for image in images {
      guard MultipartLimits.isChatBackendImage(head: Self.head(of: image, count: 16)) else {
        throw ChatError(
          .invalidInput,
          "\(image.path) is not a PNG, JPEG, GIF or WebP image, whatever its name; nothing was sent.")
      }
    }
  }

  func copyImages(_ images: [URL], for clientMessageID: String, into account: ChatAccount) throws -> [String] {
    var names: [String] = []
    do {
      for (index, image) in images.enumerated() {
        let name = "\(clientMessageID)-\(index)" + (image.pathExtension.isEmpty ? "" : ".\(image.pathExtension)")
        let copy = account.images.appendingPathComponent(name)
        try OwnerOnlyFiles.write(try Data(contentsOf: image), to: copy)
        names.append(name)
      }
    } catch {
      removeImages(names, of: account)
      throw ChatError.storage(error, doing: "copy the images into the outbox")
    }
    return names
  }

  /// Copies `files` into the outbox beside the images, owner-only, each under the message's id and its index; the
  /// copies are what is sent, whatever happens to the originals meanwhile.
  func copyFiles(_ files: [URL], for clientMessageID: String, into account: ChatAccount) throws
    -> [OutgoingFile]
  {
    var copies: [OutgoingFile] = []
    do {
      for (index, file) in files.enumerated() {
        let copy = "\(clientMessageID)-file-\(index)"
        let target = account.images.appendingPathComponent(copy)
        try OwnerOnlyFiles.copy(file, to: target)
        copies.append(
          OutgoingFile(
            copy: copy, name: SafeFileName.sanitized(file.lastPathComponent),
            contentType: MultipartFormData.contentType(
              sniffing: Self.head(of: target, count: 64), pathExtension: file.pathExtension),
            size: try Self.size(of: target)))
      }
    } catch {
      removeImages(copies.map(\.copy) + ["\(clientMessageID)-file-\(copies.count)"], of: account)
      throw ChatError.storage(error, doing: "copy the files into the outbox")
    }
    return copies
  }

  /// The first `count` bytes of the file at `url` (fewer for a shorter file; none for one that cannot be read): what
  /// a type is told by.
  static func head(of url: URL, count: Int) -> Data {
    let handle = try? FileHandle(forReadingFrom: url)
    defer { try? handle?.close() }
    return (try? handle?.read(upToCount: count)) ?? Data()
  }

  /// The size of the regular file at `url`.
  static func size(of url: URL) throws(MultipartError) -> Int64 {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
      attributes[.type] as? FileAttributeType == .typeRegular, let size = attributes[.size] as? NSNumber
    else { throw MultipartError(.fileUnreadable, "\(url.path) is not a file that can be read") }
    return size.int64Value
  }

  func removeImages(_ names: [String], of account: ChatAccount) {
    for name in names { try? FileManager.default.removeItem(at: account.images.appendingPathComponent(name)) }
  }
}
