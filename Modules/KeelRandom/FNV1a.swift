/// FNV-1a: a stable hash of text, the same in every process (Swift's `Hasher` is seeded per process), for what
/// must be derived again from the same input (an image's colours, a data directory's port).
package enum FNV1a {
  /// The 64-bit hash of `text`'s UTF-8 bytes.
  package static func hash64(_ text: String) -> UInt64 {
    text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
  }

  /// The 32-bit hash of `text`'s UTF-8 bytes.
  package static func hash32(_ text: String) -> UInt32 {
    text.utf8.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 }
  }
}
