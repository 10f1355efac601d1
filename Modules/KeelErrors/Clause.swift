extension String {
  /// The sentence without its final periods, to go on inside a longer one: `"Disk full."` → `"Disk full"`, so that
  /// `"Cannot write: \(error.description.clause)."` never ends in `..`.
  package var clause: String {
    var text = self
    while text.hasSuffix(".") { text.removeLast() }
    return text
  }
}
