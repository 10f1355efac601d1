import Foundation
import KeelErrors
import KeelFiles

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The demo's files: a 0700 `keel-demo-<UUID>` folder in the temporary directory with the demo's pid in `owner`,
/// removed when the demo ends, on SIGTERM or SIGHUP, and, for a run that was killed outright, by the next demo.
enum DemoDirectory {
  private static let prefix = "keel-demo-"

  /// A new folder, owned by this process.
  static func make() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "\(prefix)\(UUID().uuidString)", isDirectory: true)
    do {
      try OwnerOnlyFiles.makeDirectory(directory)
      try OwnerOnlyFiles.write(Data("\(getpid())\n".utf8), to: directory.appendingPathComponent("owner"))
    } catch {
      throw CommandFailure(.localStorage, "Cannot make the demo's temporary directory: \("\(error)".clause).")
    }
    return directory
  }

  /// Removes `directory` and everything in it. It is renamed first, so that nothing can put a file back under its
  /// name while it goes, and the removal is tried again while a file written at that moment keeps it from going.
  static func remove(_ directory: URL) {
    let doomed = directory.deletingLastPathComponent().appendingPathComponent(".removing-\(UUID().uuidString)")
    for target in rename(directory.path, doomed.path) == 0 ? [doomed, directory] : [directory] {
      for _ in 0..<5 where FileManager.default.fileExists(atPath: target.path) {
        try? FileManager.default.removeItem(at: target)
      }
    }
  }

  /// Removes the folders of earlier demos of this user whose process is gone.
  static func removeAbandoned() {
    let temporary = FileManager.default.temporaryDirectory
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary.path) else { return }
    for name in names where name.hasPrefix(prefix) {
      let directory = temporary.appendingPathComponent(name, isDirectory: true)
      var status = stat()
      guard stat(directory.path, &status) == 0, status.st_uid == getuid() else { continue }
      let owner = (try? String(contentsOf: directory.appendingPathComponent("owner"), encoding: .utf8))
        .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
      if let owner, kill(owner, 0) == 0 || errno == EPERM { continue }
      // A folder without an owner file is from an older Keel, or a demo writing it this instant: only old ones go.
      let modified = (try? FileManager.default.attributesOfItem(atPath: directory.path))?[.modificationDate] as? Date
      if owner == nil, let modified, modified.timeIntervalSinceNow > -60 { continue }
      remove(directory)
    }
  }
}
