import Domain
import Foundation

/// An import file as the CLI reads it: at most ``UserImportFile/maxBytes`` of a file or of standard input, parsed
/// and checked in full by ``UserImportFile`` before anything is sent.
enum UserRows {
  /// The users of `path` (`-` is standard input).
  ///
  /// - Throws: ``CommandFailure`` of ``ExitStatus/noInput`` when the file cannot be read, or
  ///   ``ExitStatus/invalidInput`` for a file over the limits or with bad rows, each listed with its line or entry.
  static func read(_ path: String) throws -> UserImportFile {
    let name = path == "-" ? "standard input" : path
    let data = try BoundedInput.read(path, limit: UserImportFile.maxBytes)
    do {
      return try UserImportFile.parse(data)
    } catch {
      throw CommandFailure(.invalidInput, sentence(error, name: name))
    }
  }

  private static func sentence(_ error: UserImportFileError, name: String) -> String {
    let split = "split it into smaller files. Nothing was sent."
    switch error.kind {
    case .tooLarge:
      return "\(name) is larger than \(UserImportFile.maxBytes >> 20) MiB, the import limit; \(split)"
    case .tooManyRows:
      return "\(name) has more than \(UserImportFile.maxRows) users, the import limit; \(split)"
    case .notText: return "\(name) is not UTF-8 text; save it as UTF-8 CSV or JSON."
    case .notAnArray:
      return "\(name) is a JSON object; an import file is a JSON array of {\"user_id\", \"nickname\", "
        + "\"profile_url\"} objects, or CSV. Nothing was sent."
    case .badRows:
      let count = error.problems.count
      let more = count > 20 ? "; and \(count - 20) more" : ""
      return "\(name) has \(count) bad row\(count == 1 ? "" : "s"), so nothing was sent: "
        + error.problems.prefix(20).joined(separator: "; ") + more
    case .empty: return "\(name) has no users; nothing to import."
    }
  }
}
