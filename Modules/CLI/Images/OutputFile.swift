import Foundation
import KeelFiles

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where `keel images get --output` writes: a regular file is replaced whole (a new file renamed over it, so a
/// reader never sees half an image), anything else is written through and never replaced (`/dev/null`, a FIFO, a
/// terminal), a symbolic link is followed to what it names, and `-` is standard output.
enum OutputFile {
  /// Writes `data` to `path` by those rules.
  ///
  /// - Throws: ``CommandFailure`` of ``ExitStatus/localStorage`` with the system's reason.
  static func write(_ data: Data, to path: String) throws {
    if path == "-" {
      try writeThrough(data, descriptor: STDOUT_FILENO, path: "standard output")
      return
    }
    // A link is followed, and the rules apply to what it names: the link itself stays.
    let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    var status = stat()
    guard lstat(target, &status) == 0 else {
      guard errno == ENOENT else { throw failure(path, errno) }
      try replace(data, at: target, path: path)
      return
    }
    switch status.st_mode & S_IFMT {
    case S_IFREG: try replace(data, at: target, path: path)
    case S_IFDIR: throw CommandFailure(.localStorage, "Cannot write \(path): it is a directory. Give a file name.")
    case S_IFSOCK: throw CommandFailure(.localStorage, "Cannot write \(path): it is a socket.")
    default:
      let descriptor = open(target, O_WRONLY | O_CLOEXEC | O_NOCTTY)
      guard descriptor >= 0 else { throw failure(path, errno) }
      defer { close(descriptor) }
      try writeThrough(data, descriptor: descriptor, path: path)
    }
  }

  /// A new file beside `target` (the umask's mode: the image is the user's file, not Keel's), renamed over it.
  private static func replace(_ data: Data, at target: String, path: String) throws {
    do {
      try data.write(to: URL(fileURLWithPath: target), options: .atomic)
    } catch {
      let code = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code
      throw CommandFailure(
        .localStorage,
        "Cannot write \(path): \(code.map { String(cString: strerror(Int32($0))) } ?? "the file cannot be written").")
    }
  }

  private static func writeThrough(_ data: Data, descriptor: Int32, path: String) throws {
    let code = data.withUnsafeBytes { OwnerOnlyFiles.writeAll(descriptor, $0) }
    guard code == 0 else { throw failure(path, code) }
  }

  private static func failure(_ path: String, _ code: Int32) -> CommandFailure {
    CommandFailure(.localStorage, "Cannot write \(path): \(String(cString: strerror(code)).lowercased()).")
  }
}
