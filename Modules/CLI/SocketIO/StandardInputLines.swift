import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Standard input as lines, read on a thread of its own so that no task blocks on it, each line at most
/// ``maxLineBytes`` long: input size is bounded.
enum StandardInputLines {
  /// The longest line read: a larger Socket.IO message is over any server's payload limit anyway.
  static let maxLineBytes = 16 << 20

  /// A line, or the end of input, or a line too long.
  enum Item: Sendable {
    case line(String)
    case tooLong
  }

  /// The lines of standard input; the stream ends with the input.
  static func lines() -> AsyncStream<Item> {
    let (stream, continuation) = AsyncStream<Item>.makeStream()
    let thread = Thread {
      var pending = Data()
      var buffer = [UInt8](repeating: 0, count: 64 * 1_024)
      reading: while true {
        let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { break }
        pending.append(contentsOf: buffer[0..<count])
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
          var line = pending[pending.startIndex..<newline]
          if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
          continuation.yield(.line(String(decoding: line, as: UTF8.self)))
          pending = Data(pending[(newline + 1)...])
        }
        if pending.count > maxLineBytes {
          continuation.yield(.tooLong)
          break reading
        }
      }
      if !pending.isEmpty, pending.count <= maxLineBytes {
        continuation.yield(.line(String(decoding: pending, as: UTF8.self)))
      }
      continuation.finish()
    }
    thread.start()
    return stream
  }
}
