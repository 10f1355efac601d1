import Foundation
import KeelFiles

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which of the `keel chat` commands sharing a data directory runs its embedded Sandbox: the one that locks
/// `sandbox/host.lock` hosts it and says where in `sandbox/host.json`; the others send to it as guests while it stays
/// (a `tail`), or wait for a brief host (another `send`) to end and then host in turn, so that no guest loses its
/// server mid-command.
enum SandboxHost {
  /// What a host says of itself in `host.json`.
  struct Announcement: Codable {
    let pid: Int32
    let url: String
    /// Whether the host runs until stopped (a `tail`), rather than for one command's moment.
    let stays: Bool
  }

  /// What a command became.
  enum Claim {
    /// It runs the Sandbox: start it, then ``Hold/announce(_:)`` its address.
    case host(Hold)
    /// Another process's Sandbox serves it, at `url`.
    case guest(URL, pid: Int32)
  }

  /// The host's lock, held until the process ends, and where it announces itself.
  struct Hold {
    let file: URL
    let stays: Bool

    /// Says where the Sandbox is, for guests.
    func announce(_ url: URL) throws {
      let announcement = Announcement(pid: getpid(), url: url.absoluteString, stays: stays)
      try OwnerOnlyFiles.write(try JSONEncoder().encode(announcement), to: file)
    }
  }

  /// Hosts the Sandbox of `directory` (the data directory's `sandbox` folder), or finds the one that does; a
  /// command that `stays` tells its guests so. Waits up to `patience` for a brief host to end.
  ///
  /// - Throws: ``CommandFailure`` of ``ExitStatus/localStorage`` when the lock cannot be made, or the host does not
  ///   end or say where it is in time.
  static func claim(in directory: URL, stays: Bool, patience: Duration = .seconds(60)) async throws -> Claim {
    let file = directory.appendingPathComponent("host.json")
    let path = directory.appendingPathComponent("host.lock").path
    let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard descriptor >= 0 else {
      throw CommandFailure(
        .localStorage, "Cannot lock the embedded Sandbox in \(directory.path): \(String(cString: strerror(errno))).")
    }
    let deadline = ContinuousClock.now + patience
    while true {
      if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
        // Kept open, and so held, until the process ends. What an earlier host said is no longer true.
        try? FileManager.default.removeItem(at: file)
        return .host(Hold(file: file, stays: stays))
      }
      if let host = announcement(in: file), host.stays, kill(host.pid, 0) == 0, let url = URL(string: host.url) {
        close(descriptor)
        return .guest(url, pid: host.pid)
      }
      guard ContinuousClock.now < deadline else {
        close(descriptor)
        throw CommandFailure(
          .localStorage,
          "Another keel chat command kept the embedded Sandbox in \(directory.path) for over "
            + "\(patience.components.seconds) s; try again when it ends.")
      }
      try await Task.sleep(for: .milliseconds(50))
    }
  }

  private static func announcement(in file: URL) -> Announcement? {
    guard let data = try? Data(contentsOf: file) else { return nil }
    return try? JSONDecoder().decode(Announcement.self, from: data)
  }
}
