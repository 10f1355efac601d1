import Foundation
import Locking

/// Where a Sandbox keeps its users and sessions between runs (``SandboxConfiguration/stateDirectory``): one JSON
/// file, rewritten atomically after every request that changes them.
struct SandboxStateFile: Sendable {
  /// What is kept.
  struct Contents: Codable {
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

  /// What an earlier run kept, or `nil` when there is nothing (or nothing readable: a Sandbox starts empty then).
  func load() -> Contents? {
    guard let data = try? Data(contentsOf: url) else { return nil }
    return try? JSONDecoder().decode(Contents.self, from: data)
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
