import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An input file read in chunks up to a limit: at most `limit + 1` bytes are ever held, however long the file or
/// stream (`yes | keel users import -`, `/dev/zero`), so that the caller can tell "too large" from "just fits".
enum BoundedInput {
  /// The first `limit + 1` bytes at most of `path`, or of standard input for `-`.
  ///
  /// - Throws: ``CommandFailure`` of ``ExitStatus/noInput`` when the file is missing, a directory or unreadable.
  static func read(_ path: String, limit: Int) throws -> Data {
    guard path != "-" else { return try read(descriptor: STDIN_FILENO, path: "standard input", limit: limit) }
    var status = stat()
    guard stat(path, &status) == 0 else { throw failure(path, errno) }
    if status.st_mode & S_IFMT == S_IFDIR {
      throw CommandFailure(.noInput, "Cannot read \(path): it is a directory. Give a CSV or JSON file.")
    }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
    guard descriptor >= 0 else { throw failure(path, errno) }
    defer { close(descriptor) }
    return try read(descriptor: descriptor, path: path, limit: limit)
  }

  private static func read(descriptor: Int32, path: String, limit: Int) throws -> Data {
    var data = Data()
    let chunk = 1 << 16
    var buffer = [UInt8](repeating: 0, count: chunk)
    while data.count <= limit {
      let count = buffer.withUnsafeMutableBytes {
        Foundation.read(descriptor, $0.baseAddress, min(chunk, limit + 1 - data.count))
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw failure(path, errno)
      }
      if count == 0 { break }
      data.append(buffer, count: count)
    }
    return data
  }

  private static func failure(_ path: String, _ code: Int32) -> CommandFailure {
    switch code {
    case ENOENT: CommandFailure(.noInput, "Cannot read \(path): no such file. Check the path.")
    case EACCES, EPERM: CommandFailure(.noInput, "Cannot read \(path): permission denied. Check its permissions.")
    default: CommandFailure(.noInput, "Cannot read \(path): \(String(cString: strerror(code)).lowercased()).")
    }
  }
}
