import Locking

/// The faults in force, applied to each request in the order they were added.
struct FaultInjector: Sendable {
  /// What the faults decided for one request.
  struct Decision: Sendable {
    var latency: Duration = .zero
    var status: Int?
    var dropConnection = false
  }

  private struct Active {
    var fault: SandboxFault
    var generator: SplitMix64
    var remaining: Int?
  }

  private let faults = Locked<[Active]>([])

  init(initial: [SandboxFault]) {
    for fault in initial { add(fault) }
  }

  /// Puts `fault` in force.
  func add(_ fault: SandboxFault) {
    let generator = SplitMix64(seed: fault.seed ?? UInt64.random(in: .min ... .max))
    faults.withLock { $0.append(Active(fault: fault, generator: generator, remaining: fault.count)) }
  }

  /// Removes every fault.
  func removeAll() { faults.withLock { $0 = [] } }

  /// How many faults are in force.
  var count: Int { faults.withLock { $0.count } }

  /// Decides the fate of a request to `path`, counting it against the faults it matches.
  func decide(path: String) -> Decision {
    faults.withLock { faults in
      var decision = Decision()
      for index in faults.indices where faults[index].fault.matches(path) {
        let fault = faults[index].fault
        decision.latency += fault.latency
        if fault.dropConnectionRate > 0, faults[index].generator.nextUnit() < fault.dropConnectionRate {
          decision.dropConnection = true
        }
        if let status = fault.status, fault.rate >= 1 || faults[index].generator.nextUnit() < fault.rate {
          decision.status = decision.status ?? status
        }
        faults[index].remaining = faults[index].remaining.map { $0 - 1 }
      }
      faults.removeAll { ($0.remaining ?? 1) <= 0 }
      return decision
    }
  }
}

/// A small, fast, reproducible random number generator (Steele, Lea and Flood's SplitMix64).
struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9e37_79b9_7f4a_7c15
    var z = state
    z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
    z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
    return z ^ (z >> 31)
  }

  /// A draw in [0, 1): the top 53 bits of the next value.
  mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
