import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a command's results go: readable lines, or with `--json` one JSON document (the result, or else the error),
/// on standard output; progress, notes and failures on standard error.
struct Output: Sendable {
  /// Whether results are JSON.
  let json: Bool

  /// Whether standard error is a terminal (a progress bar can redraw its line).
  static var errorIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

  /// Prints `value` as JSON, or `human` as text.
  func result<Value: Encodable>(_ value: Value, human: @autoclosure () -> String) throws {
    if json {
      Self.write(try Self.encode(value) + "\n", to: .standardOutput)
    } else {
      Self.write(human() + "\n", to: .standardOutput)
    }
  }

  /// Prints a line of text; nothing with `--json`, whose output is the result alone.
  func line(_ text: String) {
    guard !json else { return }
    Self.write(text + "\n", to: .standardOutput)
  }

  /// Prints a note for the person at the terminal, on standard error.
  func note(_ text: String) {
    Self.write(text + "\n", to: .standardError)
  }

  /// Reports `failure`: one sentence on standard error and, with `--json`, an error document on standard output,
  /// unless the command already printed its result there (stdout holds one document).
  func fail(_ failure: CommandFailure) {
    if json && !failure.followsResult {
      let document = ErrorDocument(
        error: .init(kind: failure.status.name, exitCode: failure.status.rawValue, message: failure.description))
      Self.write(((try? Self.encode(document)) ?? "{}") + "\n", to: .standardOutput)
    }
    Self.write("keel: \(failure.description)\n", to: .standardError)
  }

  /// Writes `text` at once, unbuffered, so that progress lines and prompts appear when written.
  static func write(_ text: String, to handle: FileHandle) {
    handle.write(Data(text.utf8))
  }

  static func encode(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  private struct ErrorDocument: Encodable {
    struct Body: Encodable {
      let kind: String
      let exitCode: Int32
      let message: String
    }
    let error: Body
  }
}
