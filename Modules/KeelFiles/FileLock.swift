import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// An advisory lock (`flock`) on a file, which every holder that opens the same path shares, in this process or
/// another: for work only one of several processes on one directory may do at a time, such as sending from a chat
/// outbox that a `keel chat send` and a `keel chat tail` both read. The operating system releases it when the
/// process ends, however it ends.
package final class FileLock: Sendable {
  private let descriptor: Int32

  /// Opens (creating it owner-only) the lock file at `url`, never through a link.
  package init(at url: URL) throws(FileSystemError) {
    let descriptor = open(url.path, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, OwnerOnlyFiles.fileMode)
    guard descriptor >= 0 else { throw FileSystemError(errno, while: "open the lock file", path: url.path) }
    self.descriptor = descriptor
  }

  deinit { close(descriptor) }

  /// Takes the lock if no one holds it; returns whether it did.
  package func tryLock() -> Bool {
    while true {
      if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
      if errno != EINTR { return false }
    }
  }

  /// Gives the lock back.
  package func unlock() {
    _ = flock(descriptor, LOCK_UN)
  }
}
