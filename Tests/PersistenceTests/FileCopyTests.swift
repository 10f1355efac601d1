import Foundation
import KeelFiles
import Testing

/// A copy appears whole at its destination, owner-only, or not at all; a file opened to be copied later is copied as
/// it was opened, moved or not, and not at all once written to.
@Suite("File copies", .timeLimit(.minutes(1)))
struct FileCopyTests {
  let root = FileManager.default.temporaryDirectory.appendingPathComponent("keel-file-copy-\(UUID().uuidString)")

  private func made(_ name: String, _ bytes: Data) throws -> URL {
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let file = root.appendingPathComponent(name)
    try bytes.write(to: file)
    return file
  }

  private func mode(_ url: URL) throws -> Int {
    try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
  }

  /// The names in `root` of the temporary files a copy writes before its rename.
  private func leftovers() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".tmp") }
  }

  private static let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

  @Test("A copy replaces its destination with the whole file, 0600")
  func copy() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let source = try made("source", Self.bytes)
    let destination = try made("destination", Data("old".utf8))
    try OwnerOnlyFiles.copy(source, to: destination)
    #expect(try Data(contentsOf: destination) == Self.bytes)
    #expect(try mode(destination) == 0o600)
    #expect(try leftovers().isEmpty)
  }

  @Test("A file opened to be copied is copied as it was, after it was moved or removed")
  func openedThenMoved() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let source = try made("download", Self.bytes)
    let opened = try OpenedFile(source)
    #expect(opened.size == Int64(Self.bytes.count))
    let moved = root.appendingPathComponent("moved")
    try FileManager.default.moveItem(at: source, to: moved)
    try opened.copy(to: root.appendingPathComponent("kept"))
    #expect(try Data(contentsOf: root.appendingPathComponent("kept")) == Self.bytes)

    let other = try OpenedFile(moved)
    try FileManager.default.removeItem(at: moved)
    try other.copy(to: root.appendingPathComponent("kept-again"))
    #expect(try Data(contentsOf: root.appendingPathComponent("kept-again")) == Self.bytes)
    #expect(try mode(root.appendingPathComponent("kept-again")) == 0o600)
  }

  @Test("A file written to after it was opened is not copied, and nothing is left where it would have gone")
  func openedThenWritten() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let source = try made("download", Self.bytes)
    let opened = try OpenedFile(source)
    let handle = try FileHandle(forWritingTo: source)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("edited".utf8))
    try handle.close()
    let kept = root.appendingPathComponent("kept")
    let refused = #expect(throws: FileSystemError.self) { try opened.copy(to: kept) }
    #expect(refused?.code == ESTALE)
    #expect(!FileManager.default.fileExists(atPath: kept.path))
    #expect(try leftovers().isEmpty)

    let overwritten = try OpenedFile(source)
    let sameSize = try FileHandle(forWritingTo: source)
    try sameSize.write(contentsOf: Data("edited".utf8))
    try sameSize.close()
    #expect(try FileManager.default.attributesOfItem(atPath: source.path)[.size] as? Int == Self.bytes.count + 6)
    #expect(throws: FileSystemError.self, "an edit right after the open that keeps the size") {
      try overwritten.copy(to: kept)
    }
    #expect(!FileManager.default.fileExists(atPath: kept.path))

    let cut = try OpenedFile(source)
    try FileHandle(forWritingTo: source).truncate(atOffset: 10)
    #expect(throws: FileSystemError.self) { try cut.copy(to: kept) }
    #expect(!FileManager.default.fileExists(atPath: kept.path))
  }
}
