import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A download in progress: a 0600 temporary file beside its destination that becomes the destination only once it is
/// whole (``commit()``), so that a reader never sees half a download and a failed one leaves nothing behind.
///
/// It is not flushed to the disk (no `fsync`): what it holds can be fetched or made again, and a flush of a large file
/// costs more than its transfer (a 25 MiB download took twice as long with it). A killed process loses nothing the
/// kernel has; a power loss may leave the destination empty or short, so a cache that keeps one checks its size
/// before using it.
package final class PartialFile {
  /// Where the file goes once complete.
  package let destination: URL
  private let temporary: String
  private var descriptor: Int32

  /// Creates the temporary file beside `destination`.
  package init(beside destination: URL) throws(FileSystemError) {
    self.destination = destination
    temporary =
      destination.deletingLastPathComponent()
      .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).part").path
    descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, OwnerOnlyFiles.fileMode)
    guard descriptor >= 0 else { throw FileSystemError(errno, while: "create", path: temporary) }
  }

  deinit { discard() }

  /// Appends `bytes`.
  package func append(_ bytes: UnsafeRawBufferPointer) throws(FileSystemError) {
    let failed = OwnerOnlyFiles.writeAll(descriptor, bytes)
    guard failed == 0 else { throw FileSystemError(failed, while: "write", path: destination.path) }
  }

  /// Renames the file over ``destination``.
  package func commit() throws(FileSystemError) {
    defer { discard() }
    guard close(descriptor) == 0 else { throw FileSystemError(errno, while: "write", path: destination.path) }
    descriptor = -1
    guard rename(temporary, destination.path) == 0 else {
      throw FileSystemError(errno, while: "replace", path: destination.path)
    }
  }

  /// Closes and removes the temporary file, if it is still there. Called on release too.
  package func discard() {
    if descriptor >= 0 {
      close(descriptor)
      descriptor = -1
    }
    unlink(temporary)
  }
}

/// A file read in chunks, from start to end, for a body streamed from disk: at most one chunk is in memory.
package final class FileChunks {
  /// The file's size when it was opened.
  package let size: Int64
  private let path: String
  private var descriptor: Int32

  /// Opens `file` for reading. A directory or anything but a regular file is refused (`EISDIR`, `EINVAL`): a FIFO or
  /// a device has no size to announce.
  package init(_ file: URL) throws(FileSystemError) {
    path = file.path
    descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw FileSystemError(errno, while: "open", path: path) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let failure = FileSystemError(errno, while: "read", path: path)
      _ = Foundation.close(descriptor)
      throw failure
    }
    guard (status.st_mode & S_IFMT) == S_IFREG else {
      _ = Foundation.close(descriptor)
      throw FileSystemError((status.st_mode & S_IFMT) == S_IFDIR ? EISDIR : EINVAL, while: "upload", path: path)
    }
    size = Int64(status.st_size)
  }

  deinit { close() }

  /// The next chunk of at most `limit` bytes; empty at the end of the file.
  package func next(limit: Int = 64 * 1_024) throws(FileSystemError) -> Data {
    guard descriptor >= 0 else { return Data() }
    var chunk = Data(count: limit)
    let count = chunk.withUnsafeMutableBytes { buffer in
      var count: Int
      repeat { count = read(descriptor, buffer.baseAddress!, limit) } while count < 0 && errno == EINTR
      return count
    }
    guard count >= 0 else { throw FileSystemError(errno, while: "read", path: path) }
    chunk.count = count
    return chunk
  }

  /// Closes the file; later reads return nothing.
  package func close() {
    if descriptor >= 0 {
      _ = Foundation.close(descriptor)
      descriptor = -1
    }
  }
}
