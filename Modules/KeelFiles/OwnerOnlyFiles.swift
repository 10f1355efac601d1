import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files and directories that only their owner can use: every directory Keel creates is 0700 from the start and
/// every file 0600, so that no other user of the machine reads tokens, events or cached users (no window with wider
/// permissions, whatever the umask).
///
/// A directory that already exists is left as it is unless the caller says it is Keel's own (``makeDirectory(_:ownedByKeel:)``):
/// a `--data-dir` such as a home folder must not change under its owner's feet.
package enum OwnerOnlyFiles {
  /// The mode of every directory Keel creates.
  package static let directoryMode: mode_t = 0o700
  /// The mode of every file Keel creates.
  package static let fileMode: mode_t = 0o600

  /// Creates `directory` and any missing parents, each 0700. An existing `directory` is made 0700 too when
  /// `ownedByKeel` (a folder only Keel writes, such as `images` in the data directory); its parents never are.
  package static func makeDirectory(_ directory: URL, ownedByKeel: Bool = true) throws(FileSystemError) {
    let path = directory.path
    var missing: [String] = []
    var cursor = path
    while !cursor.isEmpty, cursor != "/", !FileManager.default.fileExists(atPath: cursor) {
      missing.append(cursor)
      cursor = (cursor as NSString).deletingLastPathComponent
    }
    for created in missing.reversed() {
      guard mkdir(created, directoryMode) == 0 || errno == EEXIST else {
        throw FileSystemError(errno, while: "create the directory", path: created)
      }
      // mkdir's mode is masked by the umask; chmod sets it whole (0700 is never wider than asked for).
      _ = chmod(created, directoryMode)
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw FileSystemError(ENOTDIR, while: "use the directory", path: path)
    }
    guard ownedByKeel, missing.isEmpty else { return }
    // Keel's own folder is narrowed through a descriptor that never follows a link: a link in its place, or a folder
    // of another user's, is refused rather than chmod'ed.
    let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else { throw linkAware(errno, while: "use the directory", path: path) }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw FileSystemError(errno, while: "use the directory", path: path) }
    guard status.st_uid == geteuid() else {
      throw FileSystemError(
        EPERM, while: "use the directory", path: path,
        explanation: "it belongs to another user (uid \(status.st_uid)), and Keel keeps only its own user's files")
    }
    if fchmod(descriptor, directoryMode) != 0 {
      throw FileSystemError(errno, while: "make the directory owner-only", path: path)
    }
  }

  /// The error for `code` from an `open` with `O_NOFOLLOW`, which says `ELOOP` (or, for `O_DIRECTORY` on some
  /// systems, `ENOTDIR`) when the path is a symbolic link: then it says so.
  private static func linkAware(_ code: Int32, while operation: String, path: String) -> FileSystemError {
    var status = stat()
    if code == ELOOP || code == ENOTDIR, lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK {
      return FileSystemError(
        code, while: operation, path: path, explanation: "it is a symbolic link, and Keel follows no link to its files")
    }
    return FileSystemError(code, while: operation, path: path)
  }

  /// Makes sure `file` exists and is 0600, creating it empty if it is missing: for files another library creates
  /// (SQLite opens an existing file as it is, and gives its `-wal` and `-shm` files the database file's mode).
  ///
  /// Neither `file` nor its companions are reached through a symbolic link: a link in their place is refused.
  package static func prepareFile(_ file: URL) throws(FileSystemError) {
    let descriptor = open(file.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, fileMode)
    guard descriptor >= 0 else { throw linkAware(errno, while: "create", path: file.path) }
    defer { close(descriptor) }
    guard fchmod(descriptor, fileMode) == 0 else {
      throw FileSystemError(errno, while: "make the file owner-only", path: file.path)
    }
    for suffix in ["-wal", "-shm", "-journal"] {
      let companion = file.path + suffix
      let opened = open(companion, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
      guard opened >= 0 else {
        if errno == ENOENT { continue }
        throw linkAware(errno, while: "open", path: companion)
      }
      _ = fchmod(opened, fileMode)
      close(opened)
    }
  }

  /// Writes `data` to a new 0600 file beside `url`, flushes it to disk when `synchronously`, and renames it over
  /// `url`: a reader sees the old file or the new one, never half of one, and a failed write leaves no temporary
  /// file behind.
  package static func write(_ data: Data, to url: URL, synchronously: Bool = true) throws(FileSystemError) {
    let temporary = url.deletingLastPathComponent()
      .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
    guard descriptor >= 0 else { throw FileSystemError(errno, while: "create", path: temporary) }
    var failure: FileSystemError?
    let written = data.withUnsafeBytes { buffer in writeAll(descriptor, buffer) }
    if written != 0 {
      failure = FileSystemError(written, while: "write", path: url.path)
    } else if synchronously, fsync(descriptor) != 0 {
      failure = FileSystemError(errno, while: "flush", path: url.path)
    }
    close(descriptor)
    if failure == nil, rename(temporary, url.path) != 0 {
      failure = FileSystemError(errno, while: "replace", path: url.path)
    }
    if let failure {
      unlink(temporary)
      throw failure
    }
  }

  /// Writes every byte of `buffer` to `descriptor`; 0, or the `errno` of the write that failed.
  package static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32 {
    var offset = 0
    while offset < buffer.count {
      let count = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
      if count < 0 {
        if errno == EINTR { continue }
        return errno
      }
      offset += count
    }
    return 0
  }
}
