import CustomDump

/// How the ``TestStore`` shows values in its failure messages: swift-custom-dump's output, indented.
enum Dump {
  /// `value` as swift-custom-dump prints it, each line indented by two spaces.
  static func value(_ value: some Any) -> String {
    indented(String(customDumping: value))
  }

  /// `value` as swift-custom-dump prints it.
  static func inline(_ value: some Any) -> String {
    String(customDumping: value)
  }

  /// The difference from `expected` to `actual`, `−` for expected lines and `+` for actual ones, with the legend.
  static func difference<Value>(expected: Value, actual: Value) -> String {
    let lines = diff(expected, actual, format: .proportional) ?? "(the two values print the same)"
    return indented(lines) + "\n\n(Expected: \u{2212}, Actual: +)"
  }

  private static func indented(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
  }
}
