import Foundation
import TestSupport

/// The `PersistenceCrashHelper durable-queue` child process, run once: it enqueues sequence numbers into a queue
/// database until it is killed with SIGKILL or has enqueued them all.
struct DurableQueueCrashChild {
  /// The JSON shape the child enqueues (`DurableQueueWriter.Record` in the helper).
  struct Record: Codable, Sendable {
    let sequence: Int
    let padding: String
  }

  /// When the child is killed.
  enum Kill: Sendable {
    /// Once it has reported `count` more items, plus `microseconds`: a moment somewhere inside a later enqueue
    /// (encoding, the transaction, the `fsync`, the write to standard output).
    case afterReporting(Int, thenMicroseconds: UInt32)
    /// After a delay from its launch: short ones land while it starts and opens (or creates) the database.
    case after(Duration)
    /// Never: it runs to the end.
    case never
  }

  /// What one run of the child printed and how it ended.
  struct Outcome: Sendable {
    /// The sequence numbers it reported as committed, in the order it printed them. A line cut short by the kill is
    /// not counted.
    let reported: [Int]
    /// Whether SIGKILL ended it (rather than its own exit).
    let killed: Bool
    /// Its exit status or the signal number.
    let status: Int32
    /// What it wrote to standard error.
    let errors: String
  }

  /// The helper binary, built beside the test bundle (PersistenceTests depends on it).
  static var binary: URL {
    ChildProcess.builtExecutable("PersistenceCrashHelper")
  }

  let database: URL

  /// Starts the child to enqueue `first..<end`, kills it with SIGKILL as `killing` says unless it has finished first,
  /// and returns once it is gone and its output read to the end.
  func run(first: Int, end: Int, seed: UInt64, killing: Kill) async throws -> Outcome {
    let process = Process()
    process.executableURL = Self.binary
    process.arguments = ["durable-queue", database.path, String(first), String(end), String(seed)]
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let pid = process.processIdentifier
    var timer: Task<Void, any Error>?
    var killAfterLines: (Int, UInt32)?
    switch killing {
    case .after(let delay):
      timer = Task {
        try await Task.sleep(for: delay)
        kill(pid, SIGKILL)
      }
    case .afterReporting(let count, let microseconds): killAfterLines = (count, microseconds)
    case .never: break
    }
    async let printed = Self.read(output.fileHandleForReading, pid: pid, killAfterLines: killAfterLines)
    async let complained = Self.read(errors.fileHandleForReading, pid: pid, killAfterLines: nil)
    let text = String(decoding: await printed, as: UTF8.self)
    let errorText = String(decoding: await complained, as: UTF8.self)
    timer?.cancel()
    await ChildProcess.waitForExit(process)
    // Only complete lines: the kill may cut the last write short.
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    return Outcome(
      reported: lines.compactMap { Int($0) }, killed: process.terminationReason == .uncaughtSignal,
      status: process.terminationStatus, errors: errorText)
  }

  /// Reads `handle` to its end on a thread of its own, as the child writes, so that it never blocks on a full pipe;
  /// once `killAfterLines` lines have arrived, waits the given microseconds and kills `pid`. The end of the file
  /// comes when the child is gone, killed or done.
  ///
  /// A thread, not `DispatchQueue.global()`: with two blocking reads on the global queue of a 2-core Linux machine,
  /// the timer task that kills the child ran late (a 19 ms kill landed after the child had finished its 0.6 s run).
  private static func read(_ handle: FileHandle, pid: Int32, killAfterLines: (Int, UInt32)?) async -> Data {
    await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        var data = Data()
        var lines = 0
        var killAt = killAfterLines
        while true {
          let chunk = handle.availableData
          if chunk.isEmpty { break }
          data.append(chunk)
          guard let (count, microseconds) = killAt else { continue }
          lines += chunk.count { $0 == UInt8(ascii: "\n") }
          if lines >= count {
            usleep(microseconds)
            kill(pid, SIGKILL)
            killAt = nil
          }
        }
        continuation.resume(returning: data)
      }
    }
  }
}
