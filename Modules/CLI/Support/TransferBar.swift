import Foundation
import Networking

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A transfer's progress for a person: one bar redrawn in place on standard error when it is a terminal, and nothing
/// at all otherwise (a script reading standard error gets no carriage returns).
struct TransferBar {
  /// What moves: `Uploading`, `Downloading`.
  let verb: String
  /// Whether standard error is a terminal, and so whether anything is drawn.
  let draws: Bool
  private var last = ""

  /// A bar for `verb`, drawn when standard error is a terminal.
  init(_ verb: String, draws: Bool = isatty(STDERR_FILENO) == 1) {
    self.verb = verb
    self.draws = draws
  }

  /// Draws `progress`, if it shows differently from what is drawn.
  mutating func show(_ progress: TransferProgress) {
    guard draws else { return }
    let text = Self.text(verb, progress)
    guard text != last else { return }
    last = text
    Output.write("\r\u{1B}[2K" + text, to: .standardError)
  }

  /// Ends the bar's line.
  func finish() {
    if draws && !last.isEmpty { Output.write("\n", to: .standardError) }
  }

  /// `Uploading [########------------] 10.0/25.0 MiB 40%`; without the bar and share when the size is unknown.
  static func text(_ verb: String, _ progress: TransferProgress) -> String {
    let done = mebibytes(progress.completedBytes)
    guard let fraction = progress.fractionCompleted, let expected = progress.expectedBytes else {
      return "\(verb) \(done) MiB"
    }
    let filled = Int((fraction * 20).rounded(.down))
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: 20 - filled)
    return "\(verb) [\(bar)] \(done)/\(mebibytes(expected)) MiB \(Int((fraction * 100).rounded(.down)))%"
  }

  private static func mebibytes(_ bytes: Int64) -> String {
    String(format: "%.1f", Double(bytes) / 1_048_576)
  }
}
