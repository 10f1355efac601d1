import Foundation
import Persistence

/// Enqueues into a DurableQueue until killed (the DurableQueue crash test).
///
/// `PersistenceCrashHelper durable-queue <database> <first> <end> <seed>` enqueues the sequence numbers
/// `first..<end` in order, one at a time or in batches of up to 40 (drawn from `seed`), and after each `enqueue`
/// returns writes the numbers it committed to standard output, one per line, in a single unbuffered write. It exits
/// 0 once `end` is reached, unless it is killed first.
enum DurableQueueWriter {
  /// The element; the test decodes the same JSON shape.
  struct Record: Codable, Sendable {
    let sequence: Int
    let padding: String
  }

  static func run(_ arguments: [String]) async throws {
    guard arguments.count == 4, let first = Int(arguments[1]), let end = Int(arguments[2]),
      let seed = UInt64(arguments[3])
    else {
      FileHandle.standardError.write(Data("usage: durable-queue <database> <first> <end> <seed>\n".utf8))
      exit(64)
    }
    let queue = try DurableQueue<Record>(
      url: URL(fileURLWithPath: arguments[0]), capacity: 1_000_000, overflow: .rejectNew)
    var random = seed | 1  // xorshift never leaves 0
    var next = first
    while next < end {
      // Half single enqueues, half batches, with payloads of varied size so that rows straddle pages.
      let size = min(draw(&random) % 2 == 0 ? 1 : 2 + Int(draw(&random) % 39), end - next)
      let records = (next..<next + size).map {
        Record(sequence: $0, padding: String(repeating: "x", count: 20 + Int(draw(&random) % 400)))
      }
      if size == 1 {
        try await queue.enqueue(records[0])
      } else {
        try await queue.enqueue(contentsOf: records)
      }
      let lines = records.map { "\($0.sequence)\n" }.joined()
      FileHandle.standardOutput.write(Data(lines.utf8))
      next += size
    }
  }

  /// xorshift64: enough for varied batch sizes; the test's kill times are what must be seeded.
  private static func draw(_ state: inout UInt64) -> UInt64 {
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    return state
  }
}
