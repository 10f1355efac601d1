import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files only their owner can read: created 0600 from the first byte (no window with wider permissions), written to
/// a new file then renamed over the old one, so a reader sees the old file or the new one, never half of one.
enum OwnerOnlyFile {
  /// Creates `directory` (and its parents) if needed and makes it 0700.
  static func makeDirectory(_ directory: URL) throws {
    do {
      try FileManager.default.createDirectory(
        at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw PersistenceError.wrapping(error, while: "create the directory", path: directory.path)
    }
    guard chmod(directory.path, 0o700) == 0 else {
      throw PersistenceError.posix(errno, while: "make the directory owner-only", path: directory.path)
    }
  }

  /// The contents of `url`, or `nil` if there is no such file.
  static func read(_ url: URL) throws -> Data? {
    do {
      return try Data(contentsOf: url)
    } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
      return nil
    } catch {
      throw PersistenceError.wrapping(error, while: "read", path: url.path)
    }
  }

  /// Writes `data` to a new 0600 file beside `url`, flushes it to disk, and renames it over `url`.
  static func write(_ data: Data, to url: URL) throws {
    let temporary = url.deletingLastPathComponent()
      .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    guard descriptor >= 0 else { throw PersistenceError.posix(errno, while: "create", path: temporary) }
    var failure: PersistenceError?
    let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
    do {
      try handle.write(contentsOf: data)
      try handle.synchronize()
    } catch {
      failure = PersistenceError.wrapping(error, while: "write", path: temporary)
    }
    close(descriptor)
    if failure == nil, rename(temporary, url.path) != 0 {
      failure = PersistenceError.posix(errno, while: "replace", path: url.path)
    }
    if let failure {
      unlink(temporary)
      throw failure
    }
  }
}
