import Foundation

/// Where Keel keeps its files when the app does not say: a `Keel` folder in the platform's application-support
/// location (`~/Library/Application Support` on Apple platforms, `$XDG_DATA_HOME` or `~/.local/share` on Linux).
enum DataDirectory {
  /// The default data directory; the temporary directory if the platform has no application-support location.
  static var `default`: URL {
    let base =
      FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
      ?? FileManager.default.temporaryDirectory
    return base.appendingPathComponent("Keel", isDirectory: true)
  }
}
