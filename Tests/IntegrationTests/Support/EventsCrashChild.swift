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

  /// Starts the child to track `numbers`, kills it as `killing` says, and returns once it is gone and its output read.
  func run(_ numbers: Range<Int>, killing: Kill) async throws -> Outcome {
    let process = Process()
    process.executableURL = ChildProcess.builtExecutable("DomainCrashHelper")
    process.arguments = [
      queue.path, baseURL.absoluteString, apiToken, String(numbers.lowerBound), String(numbers.upperBound),
    ]
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
      killAfterLines = (Int.max, 0)  // `done` still ends it
    case .afterLines(let count, let microseconds): killAfterLines = (count, microseconds)
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
      tracked: lines.compactMap { $0.hasPrefix("tracked ") ? Int($0.dropFirst("tracked ".count)) : nil },
      killed: process.terminationReason == .uncaughtSignal, status: process.terminationStatus, errors: errorText)
  }

  /// Reads `handle` to its end on a thread of its own, as the child writes, so that it never blocks on a full pipe and
  /// the kill is not delayed by a busy cooperative pool; once `killAfterLines` lines have arrived (or `done`), waits
  /// the given microseconds and kills `pid`. The end of the file comes when the child is gone.
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
          let finished = data.suffix(5) == Data("done\n".utf8)
          if lines >= count || finished {
            if !finished { usleep(microseconds) }
            kill(pid, SIGKILL)
            killAt = nil
          }
        }
        continuation.resume(returning: data)
      }
    }
  }
}
