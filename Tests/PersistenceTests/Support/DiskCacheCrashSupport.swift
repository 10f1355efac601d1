import Foundation
import TestSupport

/// The disk cache crash test's child process and the payloads it writes.
enum DiskCacheCrashSupport {
  /// The `PersistenceCrashHelper` binary, built beside the test bundle.
  static var helper: URL {
    ChildProcess.builtExecutable("PersistenceCrashHelper")
  }

  /// The payload the child writes for `key` at `generation`: a first line `key generation`, then 1 to 4 MiB of bytes
  /// that depend on both, so a reader can tell a complete, right entry from anything else.
  ///
  /// The same function is in Tests/PersistenceCrashHelper/DiskCacheWriter.swift; the two must agree.
  static func payload(key: String, generation: Int) -> Data {
    let firstLine = Array("\(key) \(generation)\n".utf8)
    var state = UInt64(truncatingIfNeeded: generation) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(key.utf8.count)
    for byte in key.utf8 { state = (state ^ UInt64(byte)) &* 0x100_0000_01B3 }
    // 4 KiB blocks of a pseudo-random pattern, each stamped with its number: cheap to make even in a debug build.
    var block = [UInt8](repeating: 0, count: 4_096)
    var word = state
    block.withUnsafeMutableBytes { bytes in
      for offset in stride(from: 0, to: bytes.count, by: 8) {
        word = word &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes.storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
      }
    }
    let blocks = 256 + Int(state % 768)
    var data = Data(capacity: firstLine.count + blocks * block.count)
    data.append(contentsOf: firstLine)
    for index in 0..<blocks {
      withUnsafeBytes(of: (UInt64(index) ^ state).littleEndian) { block.replaceSubrange(0..<8, with: $0) }
      data.append(contentsOf: block)
    }
    return data
  }

  /// The key and generation in a payload's first line, if it has one.
  static func header(of payload: Data) -> (key: String, generation: Int)? {
    guard let newline = payload.prefix(200).firstIndex(of: UInt8(ascii: "\n")) else { return nil }
    let parts = String(decoding: payload[..<newline], as: UTF8.self).split(separator: " ")
    guard parts.count == 2, let generation = Int(parts[1]) else { return nil }
    return (String(parts[0]), generation)
  }
}
