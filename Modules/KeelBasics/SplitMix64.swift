/// A small, fast, reproducible random number generator (Steele, Lea and Flood's SplitMix64): what the Sandbox's
/// seeded faults, its images and the tests and benchmarks that replay a run draw from.
package struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator that starts from `seed`.
  package init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  package mutating func next() -> UInt64 {
    state &+= 0x9e37_79b9_7f4a_7c15
    var z = state
    z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
    z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
    return z ^ (z >> 31)
  }

  /// A draw in [0, 1): the top 53 bits of the next value.
  package mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

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
