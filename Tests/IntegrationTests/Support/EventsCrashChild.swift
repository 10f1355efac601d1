import Foundation
import TestSupport

/// One run of the `DomainCrashHelper` child process: it tracks events into a queue file, uploading them to a Sandbox,
/// until it is killed with SIGKILL.
struct EventsCrashChild {
  /// When the child is killed. It is always killed: it never exits by itself within a test's time.
  enum Kill: Sendable {
    /// Once it has written `count` lines, plus `microseconds`: somewhere inside a later `track`, or an upload. Also as
    /// soon as it writes `done`.
    case afterLines(Int, thenMicroseconds: UInt32)
    /// After a delay from its launch: while it starts, opens the queue and delivers what an earlier run left.
    case after(Duration)
  }

  /// What one run printed and how it ended.
  struct Outcome: Sendable {
    /// The event numbers whose `track` returned, in order. A line cut short by the kill is not counted.
    let tracked: [Int]
    /// Whether SIGKILL ended it.
    let killed: Bool
    /// Its exit status or the signal number.
    let status: Int32
    /// What it wrote to standard error.
    let errors: String
  }

  let queue: URL
  let baseURL: URL
  let apiToken: String
  /// The durability level the child's tracker stores at: `survivesCrash` or `survivesPowerLoss`.
  var durability = "survivesCrash"

  /// Starts the child to track `numbers`, kills it as `killing` says, and returns once it is gone and its output read.
  func run(_ numbers: Range<Int>, killing: Kill) async throws -> Outcome {
    let arguments = [
      queue.path, baseURL.absoluteString, apiToken, String(numbers.lowerBound), String(numbers.upperBound),
      durability,
    ]
    let executable = ChildProcess.builtExecutable("DomainCrashHelper")
    let run: ChildProcess.Run
    switch killing {
    case .after(let delay):
      run = try await ChildProcess.run(executable, arguments: arguments, killAfter: delay, killWhenPrinting: "done\n")
    case .afterLines(let count, let microseconds):
      run = try await ChildProcess.run(
        executable, arguments: arguments, killAfterLines: (count, microseconds), killWhenPrinting: "done\n")
    }
    return Outcome(
      tracked: run.lines.compactMap { $0.hasPrefix("tracked ") ? Int($0.dropFirst("tracked ".count)) : nil },
      killed: run.killed, status: run.status, errors: run.errors)
  }
}
