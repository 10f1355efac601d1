import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension OwnerOnlyFiles {
  /// Copies `source` to a new 0600 file beside `destination`, then renames it over `destination`: a reader sees the
  /// old file or the whole copy, never part of one, and a failed copy leaves nothing behind. On Linux the kernel
  /// copies (`sendfile`: no bytes through this process); elsewhere, and where the kernel cannot, the bytes are read
  /// and written in 1 MiB pieces.
  package static func copy(_ source: URL, to destination: URL) throws(FileSystemError) {
    let input = open(source.path, O_RDONLY | O_CLOEXEC)
    guard input >= 0 else { throw FileSystemError(errno, while: "open", path: source.path) }
    defer { close(input) }
    let temporary = destination.deletingLastPathComponent()
      .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).tmp").path
    let output = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
    guard output >= 0 else { throw FileSystemError(errno, while: "create", path: temporary) }
    var failed = copyAll(from: input, to: output)
    close(output)
    if failed == 0, rename(temporary, destination.path) != 0 { failed = errno }
    if failed != 0 {
      unlink(temporary)
      throw FileSystemError(failed, while: "copy to", path: destination.path)
    }
  }

  /// Copies what is left of `input` to `output`; 0, or the `errno` that stopped it.
  private static func copyAll(from input: Int32, to output: Int32) -> Int32 {
    #if os(Linux)
      while true {
        let count = sendfile(output, input, nil, 1 << 30)
        if count == 0 { return 0 }
        if count > 0 { continue }
        if errno == EINTR { continue }
        // A file system or kernel that cannot: the bytes go through here, from where the kernel stopped.
        if errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP { break }
        return errno
      }
    #endif
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
      if count == 0 { return 0 }
      if count < 0 {
        if errno == EINTR { continue }
        return errno
      }
      let failed = buffer.withUnsafeBytes { writeAll(output, UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
      if failed != 0 { return failed }
    }
  }
}
