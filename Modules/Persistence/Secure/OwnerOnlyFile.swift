import Foundation
import KeelFiles

/// Files only their owner can read, for Persistence's stores: ``OwnerOnlyFiles`` (0700 directories, 0600 files
/// written to a new file then renamed over the old one) with its failures as ``PersistenceError``.
package enum OwnerOnlyFile {
  /// Creates `directory` (and its parents) if needed, each 0700; an existing `directory` is made 0700 when
  /// `ownedByKeel`.
  package static func makeDirectory(_ directory: URL, ownedByKeel: Bool = true) throws {
    do {
      try OwnerOnlyFiles.makeDirectory(directory, ownedByKeel: ownedByKeel)
    } catch {
      throw PersistenceError.posix(
        error.code, while: error.operation, path: error.path, explanation: error.explanation)
    }
  }

  /// Makes sure `file` exists and is 0600 before another library (SQLite) opens it.
  package static func prepare(_ file: URL) throws {
    do {
      try OwnerOnlyFiles.prepareFile(file)
    } catch {
      throw PersistenceError.posix(
        error.code, while: error.operation, path: error.path, explanation: error.explanation)
    }
  }

  /// The contents of `url`, or `nil` if there is no such file.
  static func read(_ url: URL) throws -> Data? {
    do {
      return try Data(contentsOf: url)
    } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
      return nil
    } catch {
      throw PersistenceError.wrapping(error, while: "read", path: url.path)
    }
  }

  /// Writes `data` to a new 0600 file beside `url`, flushes it to disk, and renames it over `url`.
  static func write(_ data: Data, to url: URL, synchronously: Bool = true) throws {
    do {
      try OwnerOnlyFiles.write(data, to: url, synchronously: synchronously)
    } catch {
      throw PersistenceError.posix(
        error.code, while: error.operation, path: error.path, explanation: error.explanation)
    }
  }
}
