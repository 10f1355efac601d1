import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the CLI checks before it uses a data directory, as ssh checks its own: Keel keeps tokens, keys and the
/// embedded Sandbox's accounts there, so the directory must be the running user's and writable by no one else, and
/// nothing Keel keeps in it may be a symbolic link or belong to someone else. Anything else is refused with one
/// sentence saying what to fix (exit 74), before a file there is opened, created, locked or chmod'ed.
///
/// The directory itself may be reached through a link (`/tmp` is one on macOS); what is inside it never is. Only
/// the entries Keel keeps are looked at (the directory may be a home folder), and Keel's own folders all the way down.
enum DataDirectoryGuard {
  /// The files Keel keeps directly in the data directory.
  static let files = [
    ".keel.lock", "users.json", "settings.json", "events.sqlite", "events.sqlite-wal", "events.sqlite-shm",
    "events.sqlite-journal", "events-settings.json", "events-last-failure.txt",
  ]
  /// The folders Keel keeps in the data directory, every entry inside them its own.
  static let folders = ["sandbox", "chat", "secure", "images"]

  /// Checks `directory` as the type says.
  ///
  /// - Throws: ``CommandFailure`` of ``ExitStatus/localStorage`` naming what is wrong and how to fix it.
  static func check(_ directory: URL) throws {
    let root = directory.path
    var status = stat()
    guard stat(root, &status) == 0 else {
      throw CommandFailure(
        .localStorage, "Cannot use the data directory \(root): \(String(cString: strerror(errno))). Check --data-dir.")
    }
    try trust(status, at: root, shown: "The data directory \(root)", directory: root, isRoot: true)
    for name in files {
      try inspect(root + "/" + name, relative: name, directory: root, descend: false)
    }
    for name in folders {
      try inspect(root + "/" + name, relative: name, directory: root, descend: true)
    }
  }

  /// Checks the entry at `path` if there is one, and what is inside it when `descend`.
  private static func inspect(_ path: String, relative: String, directory: String, descend: Bool) throws {
    var status = stat()
    guard lstat(path, &status) == 0 else {
      if errno == ENOENT { return }
      throw CommandFailure(
        .localStorage, "Cannot check \(path) in the data directory: \(String(cString: strerror(errno))).")
    }
    if status.st_mode & S_IFMT == S_IFLNK {
      throw CommandFailure(
        .localStorage,
        "The data directory \(directory) holds a symbolic link, \(relative); Keel follows no link inside its data "
          + "directory: remove it (Keel makes what it needs), or choose another --data-dir.")
    }
    try trust(status, at: path, shown: relative, directory: directory, isRoot: false)
    guard descend, status.st_mode & S_IFMT == S_IFDIR else { return }
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: path)
    } catch {
      throw CommandFailure(.localStorage, "Cannot read \(path) in the data directory: \(error).")
    }
    for name in names.sorted() {
      try inspect(path + "/" + name, relative: relative + "/" + name, directory: directory, descend: true)
    }
  }

  /// Refuses an entry that is not the running user's, or that others may write to.
  private static func trust(_ status: stat, at path: String, shown: String, directory: String, isRoot: Bool) throws {
    let fix = isRoot ? "choose a --data-dir of your own, under your home" : "remove it, or choose another --data-dir"
    let subject = isRoot ? shown : "\(shown) in the data directory \(directory)"
    guard status.st_uid == geteuid() else {
      throw CommandFailure(
        .localStorage,
        "\(subject) belongs to another user (uid \(status.st_uid)), who could read or plant Keel's keys there: \(fix).")
    }
    if status.st_mode & 0o022 != 0 {
      let mode = String(status.st_mode & 0o7777, radix: 8)
      throw CommandFailure(
        .localStorage,
        "\(subject) is writable by other users (mode \(mode)), who could plant files there: run chmod go-w "
          + "\(path), or choose another --data-dir.")
    }
  }
}
