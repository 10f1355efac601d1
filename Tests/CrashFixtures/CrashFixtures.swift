import Foundation

/// What a crash test's child process and the test that kills it must agree on, written once: the child writes or
/// tracks these values, the parent checks what survived against the same ones. No Swift Testing here, so the
/// children (plain executables) can link it.
public enum CrashFixtures {
  /// The payload the disk cache child writes for `key` at `generation`: a first line `key generation`, then 1 to
  /// 4 MiB of bytes that depend on both, so a reader can tell a complete, right entry from anything else.
  public static func diskCachePayload(key: String, generation: Int) -> Data {
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

  /// The event id of event number `number`: the parent of the event tracker's crash test knows which events must
  /// have arrived.
  public static func eventId(_ number: Int) -> UUID {
    let digits = String(number)
    let padded = String(repeating: "0", count: max(0, 12 - digits.count)) + digits
    return UUID(uuidString: "00000000-0000-4000-8000-\(padded)")!
  }

  /// The text of the chat crash test's message `number`: `crash 07`, so that the server's order is the sent order.
  public static func chatText(_ number: Int) -> String {
    "crash " + (number < 10 ? "0" : "") + String(number)
  }

  /// The text the chat crash test's edit gives its message.
  public static let editedText = "crash, edited"
}
