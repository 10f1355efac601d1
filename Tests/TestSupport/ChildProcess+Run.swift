import Foundation

extension ChildProcess {
  /// What a child process printed, and how it ended.
  public struct Run: Sendable {
    /// The complete lines it wrote to standard output: a line cut short by a kill is not among them.
    public let lines: [String]
    /// What it wrote to standard error.
    public let errors: String
    /// Whether SIGKILL ended it (rather than its own exit).
    public let killed: Bool
    /// Its exit status or the signal number.
    public let status: Int32
  }

  /// Runs `executable` with `arguments` and sends it `signal` (SIGKILL unless told otherwise) once it has written
  /// `lines.count` lines to standard output (standard error with `watchingStandardError`), plus
  /// `lines.thenMicroseconds`, or as soon as that output ends with `marker`; kills it with SIGKILL `delay` after its
  /// launch in any case. Returns once it is gone and its output
  /// read to the end.
  ///
  /// Both pipes are read on threads of their own as the child writes, so that it never blocks on a full pipe; not on
  /// `DispatchQueue.global()`: with two blocking reads there on a 2-core Linux machine, the timer that kills the child
  /// ran late (a 19 ms kill landed after the child had finished its 0.6 s run).
  public static func run(
    _ executable: URL, arguments: [String], killAfter delay: Duration? = nil,
    killAfterLines lines: (count: Int, thenMicroseconds: UInt32)? = nil, killWhenPrinting marker: String? = nil,
    signal: Int32 = SIGKILL, watchingStandardError: Bool = false
  ) async throws -> Run {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let pid = process.processIdentifier
    let timer = delay.map { delay in
      Task {
        try await Task.sleep(for: delay)
        kill(pid, SIGKILL)
      }
    }
    let watch = KillWatch(lines: lines, marker: marker.map { Data($0.utf8) }, signal: signal)
    async let printed = read(output.fileHandleForReading, pid: pid, watch: watchingStandardError ? nil : watch)
    async let complained = read(errors.fileHandleForReading, pid: pid, watch: watchingStandardError ? watch : nil)
    let text = String(decoding: await printed, as: UTF8.self)
    let errorText = String(decoding: await complained, as: UTF8.self)
    timer?.cancel()
    await waitForExit(process)
    // Only complete lines: the kill may cut the last write short.
    let complete = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    return Run(
      lines: complete, errors: errorText, killed: process.terminationReason == .uncaughtSignal,
      status: process.terminationStatus)
  }

  /// When the output read so far calls for the kill.
  private struct KillWatch: Sendable {
    let lines: (count: Int, thenMicroseconds: UInt32)?
    let marker: Data?
    let signal: Int32
  }

  /// Reads `handle` to its end, killing `pid` once as `watch` says; the end comes when the child is gone.
  ///
  /// With `read(2)` on the descriptor and a buffer of its own, not `FileHandle.availableData`: once, in a full run of
  /// the suite, the test process died with SIGSEGV inside this loop while it used `availableData`.
  private static func read(_ handle: FileHandle, pid: Int32, watch: KillWatch?) async -> Data {
    await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        var data = Data()
        var lines = 0
        var armed = watch != nil
        let descriptor = handle.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 64 * 1_024)
        while true {
          let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
          if count < 0, errno == EINTR { continue }
          if count <= 0 { break }
          let chunk = Data(buffer[0..<count])
          data.append(chunk)
          guard armed, let watch else { continue }
          lines += chunk.count { $0 == UInt8(ascii: "\n") }
          if let marker = watch.marker, data.suffix(marker.count) == marker {
            kill(pid, watch.signal)
            armed = false
          } else if let (count, microseconds) = watch.lines, lines >= count {
            usleep(microseconds)
            kill(pid, watch.signal)
            armed = false
          }
        }
        continuation.resume(returning: data)
      }
    }
  }
}

/// `read(2)`, by a name that the static `read` above does not shadow.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
  read(descriptor, buffer, count)
}
