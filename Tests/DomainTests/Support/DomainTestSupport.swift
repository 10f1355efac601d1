import Foundation

/// A fresh, empty directory under the temporary directory, for a test's stores and caches.
func temporaryDirectory(_ name: String = #function) throws -> URL {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("keel-domain-tests", isDirectory: true)
    .appendingPathComponent("\(name.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString)", isDirectory: true)
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  return directory
}
