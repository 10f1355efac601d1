import Foundation
import KeelConcurrency
import KeelFiles

/// A 0700 folder in the temporary directory for the files of services that have no data directory to use (the image
/// cache, the event queue), made on first use and removed with everything in it when its owner, ``Dependencies``,
/// goes away: a run that falls back to it leaves no downloaded image or event behind.
final class ScratchDirectory: Sendable {
  private let made = Locked<URL?>(nil)

  /// A folder for `name` (`images`, `events`) inside this scratch directory, created if needed.
  func folder(_ name: String) throws -> URL {
    try made.withLock { root in
      let base =
        root ?? FileManager.default.temporaryDirectory.appendingPathComponent("keel-\(UUID().uuidString)")
      root = base
      let folder = base.appendingPathComponent(name, isDirectory: true)
      try OwnerOnlyFiles.makeDirectory(folder)
      return folder
    }
  }

  deinit {
    if let root = made.withLock({ $0 }) { try? FileManager.default.removeItem(at: root) }
  }
}
