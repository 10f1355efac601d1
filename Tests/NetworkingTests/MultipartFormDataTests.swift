import Foundation
import Networking
import Testing

/// The `multipart/form-data` bodies of chat messages with images (REQUIREMENTS C2): the bytes as RFC 7578 and browsers
/// write them, types read from the files, every limit a typed error before anything is written, and files copied from
/// disk a chunk at a time into an owner-only body file.
@Suite struct MultipartFormDataTests {
  static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])

  /// A folder of its own, removed when the test ends.
  final class Scratch {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("keel-multipart-\(UUID().uuidString)")
    init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String, _ contents: Data) throws -> URL {
      let file = url.appendingPathComponent(name)
      try contents.write(to: file)
      return file
    }
  }

  @Test("A random boundary is keel- and 32 hexadecimal digits, a new one for each body")
  func randomBoundaries() {
    let boundaries = (0..<1_000).map { _ in MultipartFormData().boundary }
    #expect(Set(boundaries).count == 1_000)
    let hex = Set("0123456789abcdef")
    #expect(
      boundaries.allSatisfy { $0.hasPrefix("keel-") && $0.count == 37 && $0.dropFirst(5).allSatisfy(hex.contains) })
  }

  @Test func aFieldAndAFileAreWrittenAsRFC7578Says() throws {
    let scratch = try Scratch()
    var form = try MultipartFormData(boundary: "XyZ")
    form.append("héllo", name: "text")
    try form.append(fileAt: scratch.file("a.png", Self.png), name: "images")
    let body = try form.encoded()
    var expected = Data(
      ("--XyZ\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nhéllo\r\n"
        + "--XyZ\r\nContent-Disposition: form-data; name=\"images\"; filename=\"a.png\"\r\n"
        + "Content-Type: image/png\r\n\r\n").utf8)
    expected.append(Self.png)
    expected.append(Data("\r\n--XyZ--\r\n".utf8))
    #expect(body == expected)
    #expect(form.length == Int64(body.count))
    #expect(form.contentType == "multipart/form-data; boundary=XyZ")
    #expect(form.fileCount == 1)
  }

  @Test func quotesAndLineBreaksInNamesAreEscapedAsBrowsersDo() throws {
    let scratch = try Scratch()
    var form = try MultipartFormData(boundary: "b")
    form.append("v", name: "a\"b\r\nc")
    try form.append(fileAt: scratch.file("x.txt", Data("t".utf8)), name: "f", filename: "evil\".txt\r\nX-Injected: 1")
    let text = String(decoding: try form.encoded(), as: UTF8.self)
    #expect(text.contains("name=\"a%22b%0D%0Ac\""))
    #expect(text.contains("filename=\"evil%22.txt%0D%0AX-Injected: 1\""))
    #expect(!text.contains("\r\nX-Injected"))
  }

  @Test func aFileTypeComesFromItsBytesThenItsExtension() throws {
    let scratch = try Scratch()
    var form = MultipartFormData()
    try form.append(fileAt: scratch.file("really-a-png.txt", Self.png), name: "f")
    #expect(String(decoding: try form.encoded(), as: UTF8.self).contains("Content-Type: image/png"))
    #expect(MultipartFormData.contentType(sniffing: Data([0xFF, 0xD8, 0xFF, 0xE0]), pathExtension: "") == "image/jpeg")
    #expect(MultipartFormData.contentType(sniffing: Data("GIF89a".utf8), pathExtension: "bin") == "image/gif")
    #expect(
      MultipartFormData.contentType(sniffing: Data("RIFF\0\0\0\0WEBPVP8 ".utf8), pathExtension: "") == "image/webp")
    #expect(
      MultipartFormData.contentType(sniffing: Data("\0\0\0\u{18}ftypheic".utf8), pathExtension: "") == "image/heic")
    #expect(MultipartFormData.contentType(sniffing: Data("{}".utf8), pathExtension: "JSON") == "application/json")
    #expect(MultipartFormData.contentType(sniffing: Data(), pathExtension: "") == "application/octet-stream")
  }

  @Test("One table of magic numbers: every image format the uploads, the image loader and the Sandbox tell apart")
  func sniffing() {
    let cases: [(String, [UInt8], String?)] = [
      ("PNG", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "image/png"),
      ("GIF87a", Array("GIF87a".utf8), "image/gif"),
      ("AVIF", Array("\0\0\0\u{1C}ftypavif".utf8), "image/avif"),
      ("BMP", Array("BM6\0".utf8), "image/bmp"),
      ("TIFF, little-endian", [0x49, 0x49, 0x2A, 0x00], "image/tiff"),
      ("TIFF, big-endian", [0x4D, 0x4D, 0x00, 0x2A], "image/tiff"),
      ("ICO", [0x00, 0x00, 0x01, 0x00, 0x01], "image/x-icon"),
      ("PDF", Array("%PDF-1.7".utf8), "application/pdf"),
      ("an MP4 video: ftyp, but not an image's brand", Array("\0\0\0\u{18}ftypisom".utf8), nil),
      ("GIF without its version", Array("GIF8".utf8), nil),
      ("HTML", Array("<!doctype html>".utf8), nil),
    ]
    for (name, bytes, type) in cases {
      #expect(MultipartFormData.sniffedContentType(Data(bytes)) == type, "\(name)")
    }
  }

  @Test func aMissingFileOrAFolderFailsWhenAttached() throws {
    let scratch = try Scratch()
    var form = MultipartFormData()
    #expect(throws: MultipartError.self) {
      try form.append(fileAt: scratch.url.appendingPathComponent("no"), name: "f")
    }
    let error = #expect(throws: MultipartError.self) { try form.append(fileAt: scratch.url, name: "f") }
    #expect(error?.kind == .fileUnreadable)
    #expect(form.fileCount == 0)
  }

  @Test func everyLimitIsATypedErrorAndNothingIsWritten() throws {
    let scratch = try Scratch()
    let destination = scratch.url.appendingPathComponent("body")
    let images = MultipartLimits(maxFiles: 5, allowedFileTypes: MultipartLimits.imageTypes)
    func failure(_ form: MultipartFormData, _ limits: MultipartLimits) -> MultipartError.Kind? {
      let error = #expect(throws: MultipartError.self) { try form.write(to: destination, limits: limits) }
      #expect(!FileManager.default.fileExists(atPath: destination.path))
      return error?.kind
    }
    var six = MultipartFormData()
    for index in 0..<6 { try six.append(fileAt: scratch.file("\(index).png", Self.png), name: "images") }
    #expect(failure(six, images) == .tooManyFiles)

    var text = MultipartFormData()
    try text.append(fileAt: scratch.file("notes.txt", Data("not an image".utf8)), name: "images")
    #expect(failure(text, images) == .typeNotAllowed)
    #expect(failure(text, MultipartLimits(maxFileSize: 3)) == .fileTooLarge)
    #expect(failure(text, MultipartLimits(maxBodySize: 100)) == .bodyTooLarge)

    var field = MultipartFormData()
    field.append(String(repeating: "x", count: 11), name: "text")
    #expect(failure(field, MultipartLimits(maxFieldSize: 10)) == .fieldTooLarge)
    var unnamed = MultipartFormData()
    unnamed.append("v", name: "")
    #expect(failure(unnamed, MultipartLimits()) == .invalidPart)
    #expect(throws: MultipartError.self) { try MultipartFormData(boundary: "no\"quotes") }
  }

  @Test func aLargeFileIsCopiedIntoAnOwnerOnlyBodyFile() throws {
    let scratch = try Scratch()
    let big = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    var form = MultipartFormData()
    form.append("caption", name: "text")
    try form.append(fileAt: scratch.file("big.bin", big), name: "file")
    let destination = scratch.url.appendingPathComponent("body")
    let written = try form.write(to: destination)
    #expect(written == form.length)
    #expect(try Data(contentsOf: destination) == form.encoded())
    let mode = try FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted() == ["big.bin", "body"])
  }

  @Test func aFileThatChangedSinceItWasAttachedIsNotSentHalfRight() throws {
    let scratch = try Scratch()
    let file = try scratch.file("a.png", Self.png)
    var form = MultipartFormData()
    try form.append(fileAt: file, name: "images")
    try (Self.png + Data([4, 5])).write(to: file)
    let destination = scratch.url.appendingPathComponent("body")
    let error = #expect(throws: MultipartError.self) { try form.write(to: destination) }
    #expect(error?.kind == .fileChanged)
    #expect(!FileManager.default.fileExists(atPath: destination.path))
  }
}
