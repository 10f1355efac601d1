import CrashFixtures
import Foundation
import TestSupport

/// The disk cache crash test's child process and the payloads it writes.
enum DiskCacheCrashSupport {
  /// The `PersistenceCrashHelper` binary, built beside the test bundle.
  static var helper: URL {
    ChildProcess.builtExecutable("PersistenceCrashHelper")
  }

  /// The key and generation in a payload's first line, if it has one.
  static func header(of payload: Data) -> (key: String, generation: Int)? {
    guard let newline = payload.prefix(200).firstIndex(of: UInt8(ascii: "\n")) else { return nil }
    let parts = String(decoding: payload[..<newline], as: UTF8.self).split(separator: " ")
    guard parts.count == 2, let generation = Int(parts[1]) else { return nil }
    return (String(parts[0]), generation)
  }
}
