import Foundation
import KeelBasics

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One `keel` command per data directory at a time: the embedded Sandbox's state, the image cache and the event queue
/// each have one owner. The lock is an advisory `flock` on `<data-dir>/.keel.lock`, held until the process ends.
enum DataDirectoryLock {
  /// Creates `directory` if needed and locks it for this process.
  ///
  /// - Throws: ``CommandFailure`` of ``ExitStatus/localStorage`` when the directory cannot be created or another
  ///   command holds it.
  static func acquire(_ directory: URL) throws {
    do {
      // Created 0700 when new; a directory the user made is left as it is (it may be their home).
      try OwnerOnlyFiles.makeDirectory(directory, ownedByKeel: false)
    } catch {
      throw CommandFailure(
        .localStorage,
        "Cannot use the data directory \(directory.path): \(error.reason.lowercased()). Check --data-dir.")
    }
    let path = directory.appendingPathComponent(".keel.lock").path
    let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw CommandFailure(
        .localStorage, "Cannot lock the data directory \(directory.path): \(String(cString: strerror(errno))).")
    }
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
      let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
      close(descriptor)
      throw CommandFailure(
        .localStorage,
        "Another keel command\(holder.map { " (pid \($0))" } ?? "") is using the data directory \(directory.path); "
          + "wait for it to end, or give this one its own --data-dir.")
    }
    // Kept open, and so locked, until the process ends: the descriptor is deliberately never closed.
    _ = ftruncate(descriptor, 0)
    let pid = "\(getpid())\n"
    _ = pid.withCString { write(descriptor, $0, strlen($0)) }
  }
}
