import Foundation
import KeelConcurrency

/// A `keel` (or any) process started in the background, for tests that act while it runs: wait for a line on its
/// standard error, do something to it or beside it, then wait for its end.
public final class Spawned: Sendable {
  /// The process.
  public let process: Process
  private let printed = Locked(Data())
  private let complained = Locked(Data())
  private let finishedReaders = Locked(0)

  /// Starts `executable` with `arguments`, `environment` added to this process's, and `input` as standard input.
  public init(
    _ executable: URL, _ arguments: [String], environment: [String: String] = [:], input: FileHandle? = nil
  ) throws {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    if let input { process.standardInput = input }
    try process.run()
    self.process = process
    for (handle, sink) in [(output.fileHandleForReading, printed), (errors.fileHandleForReading, complained)] {
      Thread.detachNewThread { [finishedReaders] in
        while true {
          let chunk = handle.availableData
          if chunk.isEmpty { break }
          sink.withLock { $0.append(chunk) }
        }
        finishedReaders.withLock { $0 += 1 }
      }
    }
  }

  /// What it wrote to standard output so far.
  public var output: Data { printed.withLock { $0 } }
  /// What it wrote to standard error so far.
  public var errors: String { String(decoding: complained.withLock { $0 }, as: UTF8.self) }

  /// Waits (in real time, at most `limit`) until standard error contains `text`; false if it never did.
  public func waitForErrors(containing text: String, within limit: Duration = .seconds(60)) async -> Bool {
    await poll(for: limit) { errors.contains(text) || !process.isRunning } && errors.contains(text)
  }

  /// Waits for its end (killing it after `limit`) and returns its exit status, or its signal's number.
  public func finish(within limit: Duration = .seconds(60)) async -> Int32 {
    let pid = process.processIdentifier
    let timer = Task {
      try await Task.sleep(for: limit)
      kill(pid, SIGKILL)
    }
    await ChildProcess.waitForExit(process)
    timer.cancel()
    // The readers end with the pipes; give them a moment to take the last bytes.
    _ = await poll(every: .milliseconds(10), for: .seconds(5)) { finishedReaders.withLock { $0 } == 2 }
    return process.terminationStatus
  }
}
