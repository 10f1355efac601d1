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
    let arguments = ["durable-queue", database.path, String(first), String(end), String(seed)]
    let run: ChildProcess.Run
    switch killing {
    case .after(let delay): run = try await ChildProcess.run(Self.binary, arguments: arguments, killAfter: delay)
    case .afterReporting(let count, let microseconds):
      // The child kills itself: it knows its own count at once, where the parent reading its output may lag.
      run = try await ChildProcess.run(
        Self.binary, arguments: arguments + [String(count), String(microseconds)], killAfter: .seconds(60))
    case .never: run = try await ChildProcess.run(Self.binary, arguments: arguments)
    }
    return Outcome(
      reported: run.lines.compactMap { Int($0) }, killed: run.killed, status: run.status, errors: run.errors)
  }
}
