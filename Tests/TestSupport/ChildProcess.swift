import Foundation

/// Helpers for tests that run one of the package's executables as a child process.
public enum ChildProcess {
  /// The executable `name` that `swift build` put beside the test bundle (the test target depends on it).
  public static func builtExecutable(_ name: String) -> URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
  }

  /// The next line written to `handle`, without its newline; `nil` at the end of the stream. A blocking read, bounded
  /// by the child printing or exiting.
  public static func readLine(_ handle: FileHandle) -> String? {
    var bytes: [UInt8] = []
    while let byte = try? handle.read(upToCount: 1)?.first {
      if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
      bytes.append(byte)
    }
    return nil
  }

  /// ``readLine(_:)`` on a thread of its own, so that a child slow to print (a debug build starting on a loaded
  /// machine) never holds one of the cooperative pool's few threads, and with it every other test's tasks.
  public static func nextLine(_ handle: FileHandle) async -> String? {
    await onOwnThread { readLine(handle) }
  }

  /// Returns when `process` has exited, without blocking a task's thread: the wait runs on a thread of its own.
  public static func waitForExit(_ process: Process) async {
    await onOwnThread { process.waitUntilExit() }
  }
}
