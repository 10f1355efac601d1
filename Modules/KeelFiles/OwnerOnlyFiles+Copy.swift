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
    try copy(from: input, to: destination) { nil }
  }

  /// Copies what is left of `input` to a new 0600 file beside `destination` and renames it over `destination`,
  /// unless `refusal` (asked once the bytes are copied) gives a reason not to; nothing is left behind on failure.
  fileprivate static func copy(
    from input: Int32, to destination: URL, unless refusal: () -> FileSystemError?
  ) throws(FileSystemError) {
    let temporary = destination.deletingLastPathComponent()
      .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).tmp").path
    let output = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
    guard output >= 0 else { throw FileSystemError(errno, while: "create", path: temporary) }
    var failed = copyAll(from: input, to: output)
    close(output)
    var refused = failed == 0 ? refusal() : nil
    if failed == 0, refused == nil, rename(temporary, destination.path) != 0 { failed = errno }
    if failed != 0 { refused = FileSystemError(failed, while: "copy to", path: destination.path) }
    if let refused {
      unlink(temporary)
      throw refused
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

/// A file opened now to be copied later as it is now, for a copy made after the file is handed on: ``copy(to:)``
/// reads the file that was opened, wherever it has been moved or even if it was removed since, and refuses, leaving
/// nothing, if its size or modification time changed (it was written to in place).
///
/// Opening it sets its modification time to the present to the nanosecond: a kernel may stamp a write with a coarser
/// clock (Linux before 6.13: its last tick, 1 to 10 ms old), so that without it a write right after the file's last
/// one, keeping its size, could leave the time as it was. On a file system that keeps whole seconds only, a write
/// within the same second that keeps the size is not seen.
package final class OpenedFile: Sendable {
  /// The path it was opened at, for errors.
  package let path: String
  private let descriptor: Int32
  private let state: State

  /// What tells a file written to from the file as it was opened.
  private struct State: Equatable {
    let size: Int64
    let seconds: Int
    let nanoseconds: Int

    init(_ status: stat) {
      size = Int64(status.st_size)
      #if canImport(Darwin)
        (seconds, nanoseconds) = (Int(status.st_mtimespec.tv_sec), Int(status.st_mtimespec.tv_nsec))
      #else
        (seconds, nanoseconds) = (Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec))
      #endif
    }
  }

  /// Opens `file` for reading, sets its times to now, and notes that time and its size. Setting the time
  /// needs the caller to own `file`, as it does a download it has just written.
  package init(_ file: URL) throws(FileSystemError) {
    path = file.path
    descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw FileSystemError(errno, while: "open", path: path) }
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    // Its access time too, which a file just written has anyway.
    var times = [now, now]
    var status = stat()
    guard futimens(descriptor, &times) == 0, fstat(descriptor, &status) == 0 else {
      let failure = FileSystemError(errno, while: "read", path: path)
      close(descriptor)
      throw failure
    }
    state = State(status)
  }

  deinit { close(descriptor) }

  /// The file's size when it was opened.
  package var size: Int64 { state.size }

  /// Copies the file, from its start, to a new 0600 file renamed over `destination` (see
  /// ``OwnerOnlyFiles/copy(_:to:)``); call it once.
  ///
  /// - Throws: `ESTALE` when the file was written to since it was opened; what the copy met otherwise.
  package func copy(to destination: URL) throws(FileSystemError) {
    guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw FileSystemError(errno, while: "read", path: path) }
    try OwnerOnlyFiles.copy(from: descriptor, to: destination) {
      var status = stat()
      guard fstat(descriptor, &status) == 0 else { return FileSystemError(errno, while: "read", path: path) }
      guard State(status) == state else {
        return FileSystemError(ESTALE, while: "keep", path: path, explanation: "it was written to meanwhile")
      }
      return nil
    }
  }
}
