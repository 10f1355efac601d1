import Foundation

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
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    } catch {
      throw CommandFailure(
        .localStorage, "Cannot use the data directory \(directory.path): \(Self.reason(error)). Check --data-dir.")
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

  private static func reason(_ error: any Error) -> String {
    let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
    if let code = underlying.map({ Int32($0.code) }), underlying?.domain == NSPOSIXErrorDomain {
      return String(cString: strerror(code)).lowercased()
    }
    return "a file is in the way, or it is not writable"
  }
}
