import Foundation
import Persistence

/// Enqueues into a DurableQueue until killed (the DurableQueue crash test).
///
/// `PersistenceCrashHelper durable-queue <database> <first> <end> <seed>` enqueues the sequence numbers
/// `first..<end` in order, one at a time or in batches of up to 40 (drawn from `seed`), and after each `enqueue`
/// returns writes the numbers it committed to standard output, one per line, in a single unbuffered write. It exits
/// 0 once `end` is reached, unless it is killed first.
///
/// With `<kill after> <microseconds>` it kills itself with SIGKILL that long after it has reported that many numbers,
/// from a thread of its own while it goes on enqueueing: the kill lands inside a later enqueue however slowly the
/// parent reads (a parent that killed it from its reading of the output ran behind on a loaded machine, and the
/// child finished its round first).
///
/// An even `seed` opens the queue checkpointing beside the writer, as the chat's outbox does (`WALCheckpointer`), an
/// odd one with SQLite's own checkpoint: a kill lands inside either.
enum DurableQueueWriter {
  /// The element; the test decodes the same JSON shape.
  struct Record: Codable, Sendable {
    let sequence: Int
    let padding: String
  }

  static func run(_ arguments: [String]) async throws {
    guard arguments.count == 4 || arguments.count == 6, let first = Int(arguments[1]), let end = Int(arguments[2]),
      let seed = UInt64(arguments[3])
    else {
      FileHandle.standardError.write(
        Data("usage: durable-queue <database> <first> <end> <seed> [<kill after> <microseconds>]\n".utf8))
      exit(64)
    }
    let selfKill = arguments.count == 6 ? Int(arguments[4]).flatMap { n in UInt32(arguments[5]).map { (n, $0) } } : nil
    var armed = false
    let queue = try DurableQueue<Record>(
      url: URL(fileURLWithPath: arguments[0]), capacity: 1_000_000, overflow: .rejectNew,
      checkpointsBeside: seed % 2 == 0, now: { Date() })
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
      if let selfKill, !armed, next - first >= selfKill.0 {
        armed = true
        let microseconds = selfKill.1
        Thread.detachNewThread {
          usleep(microseconds)
          kill(getpid(), SIGKILL)
        }
      }
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
