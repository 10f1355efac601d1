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

  /// Prints `value` as JSON, or `human` as text (control characters escaped: see ``printable(_:keepingLineBreaks:)``).
  func result<Value: Encodable>(_ value: Value, human: @autoclosure () -> String) throws {
    if json {
      Self.write(try Self.encode(value) + "\n", to: .standardOutput)
    } else {
      Self.write(Self.printable(human(), keepingLineBreaks: true) + "\n", to: .standardOutput)
    }
  }

  /// Prints a line of text; nothing with `--json`, whose output is the result alone.
  func line(_ text: String) {
    guard !json else { return }
    Self.write(Self.printable(text, keepingLineBreaks: true) + "\n", to: .standardOutput)
  }

  /// Prints a note for the person at the terminal, on standard error.
  func note(_ text: String) {
    Self.write(Self.printable(text, keepingLineBreaks: true) + "\n", to: .standardError)
  }

  /// `text` with every character that a terminal would act on instead of showing written as an escape: C0 and C1
  /// controls, DEL, line and paragraph separators and bidirectional overrides become `\e`, `\a`, `\u{202E}` and the
  /// like, so that a nickname a server returns cannot retitle, clear or rewrite the user's terminal. Line breaks
  /// stay when `keepingLineBreaks` (text Keel itself laid out), and are escaped too otherwise (one value).
  static func printable(_ text: String, keepingLineBreaks: Bool = false) -> String {
    guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLineBreaks: keepingLineBreaks) }) else {
      return text
    }
    var escaped = ""
    for scalar in text.unicodeScalars {
      guard needsEscape(scalar, keepingLineBreaks: keepingLineBreaks) else {
        escaped.unicodeScalars.append(scalar)
        continue
      }
      switch scalar {
      case "\u{1B}": escaped += "\\e"
      case "\u{07}": escaped += "\\a"
      case "\n": escaped += "\\n"
      case "\r": escaped += "\\r"
      case "\t": escaped += "\\t"
      case "\0": escaped += "\\0"
      default: escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
      }
    }
    return escaped
  }

  private static func needsEscape(_ scalar: Unicode.Scalar, keepingLineBreaks: Bool) -> Bool {
    switch scalar.value {
    case 0x0A: !keepingLineBreaks
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }

  /// Reports `failure`: one sentence on standard error and, with `--json`, an error document on standard output,
  /// unless the command already printed its result there (stdout holds one document).
  func fail(_ failure: CommandFailure) {
    if json && !failure.followsResult {
      let document = ErrorDocument(
        error: .init(kind: failure.status.name, exitCode: failure.status.rawValue, message: failure.description))
      Self.write(((try? Self.encode(document)) ?? "{}") + "\n", to: .standardOutput)
    }
    Self.write("keel: \(Self.printable(failure.description, keepingLineBreaks: true))\n", to: .standardError)
  }

  /// Writes `text` at once, unbuffered, so that progress lines and prompts appear when written.
  static func write(_ text: String, to handle: FileHandle) {
    handle.write(Data(text.utf8))
  }

  /// `value` as one line of JSON: sorted keys, in snake_case like the Platform API's users (`user_id`,
  /// `dead_lettered`, `exit_code`), so that every `--json` output has one key style.
  static func encode(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
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
