import Foundation
import KeelConcurrency
import KeelFiles

/// Where a Sandbox keeps its users and sessions between runs (``SandboxConfiguration/stateDirectory``): one JSON
/// file, rewritten atomically after every request that changes them, 0600 in a 0700 directory. Tenants and
/// sessions are kept under the digests of their tokens (``Secrets``), so the file holds no API, access or refresh
/// token.
struct SandboxStateFile: Sendable {
  /// What is kept.
  struct Contents: Codable {
    /// The file's format; a file of another format is set aside, not read.
    var version = SandboxStateFile.version
    var users: [String: UserDirectory]
    var auth: AuthBackend.State
    /// The accounts, signed-up ones included (absent from a file written before sign-up existed).
    var accounts: AccountDirectory.State?
    /// The chat backend's workspaces and conversations (absent from a file written before the chat backend).
    var chat: ChatState?
    var savedAt: Date
  }

  let url: URL
  private let writing = Locked(())

  /// A state file in `directory`, created if missing.
  init(directory: URL) throws {
    try OwnerOnlyFiles.makeDirectory(directory)
    url = directory.appendingPathComponent("sandbox-state.json")
    // A file an earlier version wrote with wider permissions is narrowed before anything is read from it.
    if FileManager.default.fileExists(atPath: url.path) { try OwnerOnlyFiles.prepareFile(url) }
  }

  /// The format this Sandbox writes: 2 keeps token digests (1 kept the tokens, and is set aside unread).
  static let version = 2

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
      try OwnerOnlyFiles.write(data, to: url, synchronously: false)
    }
  }
}
