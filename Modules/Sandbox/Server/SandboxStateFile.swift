import Foundation
import Locking

/// Where a Sandbox keeps its users and sessions between runs (``SandboxConfiguration/stateDirectory``): one JSON
/// file, rewritten atomically after every request that changes them.
struct SandboxStateFile: Sendable {
  /// What is kept.
  struct Contents: Codable {
    /// The file's format; a file of another format is set aside, not read.
    var version = SandboxStateFile.version
    var users: [String: UserDirectory]
    var auth: AuthBackend.State
    var savedAt: Date
  }

  let url: URL
  private let writing = Locked(())

  /// A state file in `directory`, created if missing.
  init(directory: URL) throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    url = directory.appendingPathComponent("sandbox-state.json")
  }

  /// The format this Sandbox writes.
  static let version = 1

  /// What an earlier run kept, or `nil` when there is nothing. A file that cannot be read (damaged, or of another
  /// format) is renamed `sandbox-state.unreadable-<time>.json`, so that the next save does not overwrite it, and
  /// `setAside` is told where it went.
  func load(setAside: (URL) -> Void) -> Contents? {
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    if let data = try? Data(contentsOf: url), let contents = try? JSONDecoder().decode(Contents.self, from: data),
      contents.version == Self.version
    {
      return contents
    }
    let aside = url.deletingLastPathComponent().appendingPathComponent(
      "sandbox-state.unreadable-\(Int(Date().timeIntervalSince1970)).json")
    try? FileManager.default.moveItem(at: url, to: aside)
    setAside(aside)
    return nil
  }

  /// Keeps what `contents` reads, taken and written under one lock, so that an older snapshot never overwrites a
  /// newer one.
  func save(_ contents: () -> Contents) throws {
    try writing.withLock { _ in
      let data = try JSONEncoder().encode(contents())
      try data.write(to: url, options: .atomic)
    }
  }
}
