import Foundation
import KeelErrors
import KeelFiles

/// A `multipart/form-data` body (RFC 7578): text fields and files, in the order they were appended. Files stay on disk
/// until the body is written, and are then copied a chunk at a time, so a body of many megabytes never sits in memory
/// whole: ``write(to:limits:)`` makes the file an upload streams from (`FileTransferTransport.upload`).
///
/// Everything that can be checked is checked before a byte is written: a file that is missing, unreadable or not a
/// regular file fails ``append(fileAt:name:filename:contentType:)`` at once, and ``validate(_:)`` (which writing
/// calls first) holds the body to ``MultipartLimits``. A file's type is the one given, else read from its first bytes
/// (PNG, JPEG, GIF, WebP, HEIC, PDF), else guessed from its extension.
///
/// ```swift
/// import Foundation
///
/// func messageBody(text: String, images: [URL], to file: URL) throws -> String {
///   var form = MultipartFormData()
///   form.append(text, name: "text")
///   for image in images { try form.append(fileAt: image, name: "images") }
///   _ = try form.write(to: file, limits: MultipartLimits(maxFiles: 5, allowedFileTypes: MultipartLimits.imageTypes))
///   return form.contentType  // the request's Content-Type, boundary included
/// }
/// ```
public struct MultipartFormData: Sendable {
  /// The boundary between parts: `keel-` and 32 random hexadecimal digits unless given.
  public let boundary: String
  private var parts: [Part] = []

  /// An empty body.
  ///
  /// - Parameter boundary: The boundary; 1 to 70 of the characters RFC 2046 allows, not ending in a space.
  /// - Throws: `MultipartError.Kind.invalidPart` for a boundary RFC 2046 does not allow.
  public init(boundary: String) throws(MultipartError) {
    let allowed = Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'()+_,-./:=? ")
    guard (1...70).contains(boundary.count), boundary.allSatisfy(allowed.contains), boundary.last != " " else {
      throw MultipartError(.invalidPart, "\"\(boundary)\" is not a multipart boundary (RFC 2046).")
    }
    self.boundary = boundary
  }

  /// An empty body with a random boundary: `keel-` and 128 random bits in hexadecimal.
  public init() {
    // The system's generator, not `UUID()`: on Linux a UUID opens and reads /dev/urandom each time, and this boundary
    // (with its dashes taken out) cost 15 µs, a good part of a text message's way to the transport.
    var random = SystemRandomNumberGenerator()
    let high = String(random.next() as UInt64, radix: 16)
    let low = String(random.next() as UInt64, radix: 16)
    boundary =
      "keel-" + String(repeating: "0", count: 16 - high.utf8.count) + high
      + String(repeating: "0", count: 16 - low.utf8.count) + low
  }

  /// The `Content-Type` of a request with this body: `multipart/form-data; boundary=…`.
  public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

  /// How many files the body carries.
  public var fileCount: Int { parts.count { $0.file != nil } }

  /// The length of the written body, in bytes: what ``write(to:limits:)`` writes while the files keep their sizes.
  public var length: Int64 {
    parts.reduce(Int64(closing.utf8.count)) { $0 + Int64($1.header.utf8.count) + $1.contentLength + 2 }
  }

  /// Appends a text field.
  public mutating func append(_ value: String, name: String) {
    parts.append(Part(name: name, header: header(name: name, filename: nil, contentType: nil), value: Data(value.utf8)))
  }

  /// Appends the file at `url`, checked now: it must be a regular file this process can read.
  ///
  /// - Parameters:
  ///   - url: The file.
  ///   - name: The field name (`images`); several files may share one.
  ///   - filename: The name the server is told; the file's own name by default.
  ///   - contentType: The file's type; by default read from its first bytes, else guessed from its extension.
  /// - Throws: `MultipartError.Kind.fileUnreadable` for a missing, unreadable or special file;
  ///   `MultipartError.Kind.invalidPart` for a content type with a line break.
  public mutating func append(fileAt url: URL, name: String, filename: String? = nil, contentType: String? = nil)
    throws(MultipartError)
  {
    let size: Int64
    let type: String
    do throws(FileSystemError) {
      let chunks = try FileChunks(url)
      defer { chunks.close() }
      size = chunks.size
      if let contentType {
        type = contentType
      } else {
        type = Self.contentType(sniffing: try chunks.next(limit: 16), pathExtension: url.pathExtension)
      }
    } catch {
      throw MultipartError(.fileUnreadable, "Cannot attach \(url.path): \(error.reason.clause).")
    }
    guard !type.contains(where: \.isNewline) else {
      throw MultipartError(.invalidPart, "The content type of \(url.lastPathComponent) has a line break.")
    }
    let file = File(url: url, size: size, contentType: type)
    let filename = filename ?? url.lastPathComponent
    parts.append(Part(name: name, header: header(name: name, filename: filename, contentType: type), file: file))
  }

  /// Checks the body against `limits` and its parts' names, touching no file.
  ///
  /// - Throws: ``MultipartError`` of the first limit broken, naming the part.
  public func validate(_ limits: MultipartLimits = MultipartLimits()) throws(MultipartError) {
    guard fileCount <= limits.maxFiles else {
      throw MultipartError(.tooManyFiles, "\(fileCount) files is more than the \(limits.maxFiles) allowed.")
    }
    for part in parts {
      guard !part.name.isEmpty else { throw MultipartError(.invalidPart, "A part has an empty field name.") }
      if let file = part.file {
        let name = file.url.lastPathComponent
        guard file.size <= limits.maxFileSize else {
          throw MultipartError(.fileTooLarge, "\(name) has \(file.size) bytes, over the \(limits.maxFileSize) allowed.")
        }
        if let allowed = limits.allowedFileTypes, !allowed.contains(file.contentType) {
          throw MultipartError(.typeNotAllowed, "\(name) is \(file.contentType), which is not allowed here.")
        }
      } else if part.contentLength > limits.maxFieldSize {
        throw MultipartError(
          .fieldTooLarge, "The field \(part.name) has \(part.contentLength) bytes, over the \(limits.maxFieldSize).")
      }
    }
    guard length <= limits.maxBodySize else {
      throw MultipartError(.bodyTooLarge, "The body has \(length) bytes, over the \(limits.maxBodySize) allowed.")
    }
  }

  /// Validates the body against `limits`, then writes it to `destination` (owner-only; a partial file is removed, and
  /// `destination` appears only once whole), copying each file a chunk at a time.
  ///
  /// - Returns: The number of bytes written, ``length``.
  /// - Throws: ``MultipartError``: a limit broken (nothing written), a file that changed size since it was appended
  ///   (`MultipartError.Kind.fileChanged`), or a failed write.
  @discardableResult
  public func write(to destination: URL, limits: MultipartLimits = MultipartLimits()) throws(MultipartError) -> Int64 {
    try validate(limits)
    do {
      let output = try PartialFile(beside: destination)
      var written: Int64 = 0
      try stream { data in
        try data.withUnsafeBytes { try output.append($0) }
        written += Int64(data.count)
      }
      try output.commit()
      return written
    } catch let error as MultipartError {
      throw error
    } catch {
      throw MultipartError(.writeFailed, "Cannot write the multipart body: \("\(error)".clause).")
    }
  }

  /// The whole body in memory, for a small one (text fields, a thumbnail); ``write(to:limits:)`` for anything larger.
  ///
  /// - Throws: as ``write(to:limits:)``.
  public func encoded(limits: MultipartLimits = MultipartLimits()) throws(MultipartError) -> Data {
    try validate(limits)
    var body = Data()
    do {
      try stream { body.append($0) }
    } catch let error as MultipartError {
      throw error
    } catch {
      throw MultipartError(.writeFailed, "Cannot read a file of the multipart body: \("\(error)".clause).")
    }
    return body
  }

  // MARK: - Parts

  private var closing: String { "--\(boundary)--\r\n" }

  /// Hands the whole body to `sink` in order, each file a chunk at a time: what ``write(to:limits:)`` writes and
  /// ``encoded(limits:)`` collects.
  private func stream(to sink: (Data) throws -> Void) throws {
    for part in parts {
      try sink(Data(part.header.utf8))
      if let file = part.file {
        try copy(file, by: sink)
      } else {
        try sink(part.value)
      }
      try sink(Data("\r\n".utf8))
    }
    try sink(Data(closing.utf8))
  }

  /// A part's boundary line and headers, up to the blank line before its content. Names are escaped as browsers
  /// escape them (WHATWG): `"` as `%22`, CR as `%0D`, LF as `%0A`.
  private func header(name: String, filename: String?, contentType: String?) -> String {
    var header = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escaped(name))\""
    if let filename { header += "; filename=\"\(Self.escaped(filename))\"" }
    if let contentType { header += "\r\nContent-Type: \(contentType)" }
    return header + "\r\n\r\n"
  }

  private static func escaped(_ text: String) -> String {
    text.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D")
      .replacingOccurrences(of: "\n", with: "%0A")
  }

  /// Hands `file`'s bytes to `sink` a chunk at a time, and fails if the file no longer has the size it was appended
  /// with (which validation and ``length`` counted on).
  private func copy(_ file: File, by sink: (Data) throws -> Void) throws {
    let chunks = try FileChunks(file.url)
    defer { chunks.close() }
    var copied: Int64 = 0
    while true {
      let chunk = try chunks.next()
      if chunk.isEmpty { break }
      copied += Int64(chunk.count)
      guard copied <= file.size else { break }
      try sink(chunk)
    }
    guard copied == file.size, chunks.size == file.size else {
      throw MultipartError(.fileChanged, "\(file.url.path) changed size since it was attached.")
    }
  }

  private struct File: Sendable {
    let url: URL
    let size: Int64
    let contentType: String
  }

  private struct Part: Sendable {
    let name: String
    let header: String
    var value = Data()
    var file: File?

    var contentLength: Int64 { file?.size ?? Int64(value.count) }
  }
}
