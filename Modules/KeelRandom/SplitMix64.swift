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
