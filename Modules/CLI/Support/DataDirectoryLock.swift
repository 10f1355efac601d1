import Foundation
import KeelFiles

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One `keel` command per data directory at a time: the embedded Sandbox's state, the image cache and the event queue
/// each have one owner. The `keel chat` commands are the exception: they share the directory with each other (a
/// `tail` in one terminal, a `send` in another), since what they keep there takes more than one process (SQLite
/// stores, tokens written whole) and one of them runs the embedded Sandbox for all (``SandboxHost``). The lock is an
/// advisory `flock` on `<data-dir>/.keel.lock`, held until the process ends: exclusive for every other command,
/// shared for the chat's.
enum DataDirectoryLock {
  /// How a command holds the directory.
  enum Mode {
    /// Alone.
    case exclusive
    /// With other `keel chat` commands, and no other command.
    case shared
  }

  /// What the lock file holds while chat commands share the directory.
  private static let sharedMark = "chat"

  /// Creates `directory` if needed and locks it for this process.
  ///
  /// - Throws: ``CommandFailure`` of ``ExitStatus/localStorage`` when the directory cannot be created, is not safe to
  ///   use (``DataDirectoryGuard``) or another command holds it.
  static func acquire(_ directory: URL, mode: Mode = .exclusive) throws {
    do {
      // Created 0700 when new; a directory the user made is left as it is (it may be their home).
      try OwnerOnlyFiles.makeDirectory(directory, ownedByKeel: false)
    } catch {
      throw CommandFailure(
        .localStorage,
        "Cannot use the data directory \(directory.path): \(error.reason.lowercased()). Check --data-dir.")
    }
    try DataDirectoryGuard.check(directory)
    let path = directory.appendingPathComponent(".keel.lock").path
    // Never through a link, even one made after the check: the pid is written to this file.
    let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard descriptor >= 0 else {
      throw CommandFailure(
        .localStorage, "Cannot lock the data directory \(directory.path): \(String(cString: strerror(errno))).")
    }
    guard flock(descriptor, (mode == .exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 else {
      let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
      close(descriptor)
      if holder == sharedMark {
        throw CommandFailure(
          .localStorage,
          "keel chat commands are using the data directory \(directory.path) (a chat tail runs until Ctrl-C); "
            + "wait for them to end, or give this command its own --data-dir.")
      }
      let pid = holder.flatMap { $0.isEmpty ? nil : " (pid \($0))" } ?? ""
      throw CommandFailure(
        .localStorage,
        "Another keel command\(pid) is using the data directory \(directory.path); wait for it to end, or give this "
          + "one its own --data-dir.")
    }
    // Kept open, and so locked, until the process ends: the descriptor is deliberately never closed. The file says
    // who holds it, for the message of a command that cannot.
    _ = ftruncate(descriptor, 0)
    let text = mode == .exclusive ? "\(getpid())\n" : "\(sharedMark)\n"
    _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
  }
}
