/// A file's name as a chat keeps and shows it: a name sent by anyone may hold path separators (`../../.ssh/keys`),
/// control characters (a line break that forges a log line, an escape sequence that repaints a terminal) or nothing at
/// all, and none of that may reach a path or a screen.
package enum SafeFileName {
  /// The longest name kept, in bytes of UTF-8 (what most file systems take).
  package static let maxBytes = 255

  /// `name` with every path separator (`/`, `\`) and control character (C0, DEL, C1, and the bidirectional overrides
  /// that make a name read other than it is) replaced by `_`, leading dots dropped (no hidden file, no `..`), cut to
  /// ``maxBytes`` on a character boundary; `file` when nothing is left.
  package static func sanitized(_ name: String) -> String {
    var safe = String(
      String.UnicodeScalarView(
        name.unicodeScalars.map { scalar in Self.isUnsafe(scalar) ? "_" : scalar }))
    safe = String(safe.drop { $0 == "." || $0 == " " })
    while safe.utf8.count > maxBytes { safe.removeLast() }
    return safe.isEmpty ? "file" : safe
  }

  private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x2F, 0x5C: return true  // / and \
    case 0x00...0x1F, 0x7F...0x9F: return true  // C0, DEL, C1
    case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F: return true  // bidirectional controls
    default: return false
    }
  }
}
