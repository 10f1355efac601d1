import Features
import Foundation

/// An import's progress for a person: a bar redrawn in place on a terminal, a plain line per change otherwise.
struct ProgressLine {
  /// Whether to redraw one line in place.
  let redraws: Bool
  /// Where the lines go.
  let handle: FileHandle
  private var last = ""

  init(redraws: Bool, handle: FileHandle) {
    self.redraws = redraws
    self.handle = handle
  }

  /// Shows `progress`, if it differs from what is shown.
  mutating func show(_ progress: UserImportFeature.Progress) {
    let text = Self.text(progress, bar: redraws)
    guard text != last else { return }
    last = text
    Output.write(redraws ? "\r\u{1B}[2K" + text : text + "\n", to: handle)
  }

  /// Ends the line of a redrawn bar.
  func finish() {
    if redraws && !last.isEmpty { Output.write("\n", to: handle) }
  }

  /// `[#####-----] 5/12 done, 1 failed, about 7 s left`.
  static func text(_ progress: UserImportFeature.Progress, bar: Bool) -> String {
    let width = 24
    let filled = Int((progress.fractionDone * Double(width)).rounded(.down))
    let gauge =
      bar ? "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] " : ""
    var text = "\(gauge)\(progress.done)/\(progress.total) done"
    if progress.failed > 0 { text += ", \(progress.failed) failed" }
    if let left = progress.estimatedTimeLeft { text += ", about \(seconds(left)) left" }
    return text
  }

  /// How long something took: tenths under ten seconds (`2.1 s`), whole seconds to the nearest after.
  static func elapsed(_ duration: Duration) -> String {
    let seconds = duration.inSeconds
    if seconds < 9.95 { return "\((seconds * 10).rounded() / 10) s" }
    let total = Int(seconds.rounded())
    return total < 60 ? "\(total) s" : "\(total / 60) min \(total % 60) s"
  }

  /// How long something will take, rounded up so as not to promise too little: `7 s`, `2 min 5 s`.
  static func seconds(_ duration: Duration) -> String {
    let total = Int(duration.components.seconds) + (duration.components.attoseconds > 0 ? 1 : 0)
    return total < 60 ? "\(total) s" : "\(total / 60) min \(total % 60) s"
  }
}

extension Duration {
  /// The duration in seconds, fractions included: what the CLI prints and puts in JSON.
  var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
