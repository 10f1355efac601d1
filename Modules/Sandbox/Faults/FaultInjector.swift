import KeelConcurrency
import KeelRandom

/// The faults in force, applied to each request in the order they were added.
struct FaultInjector: Sendable {
  /// What the faults decided for one request.
  struct Decision: Sendable {
    var latency: Duration = .zero
    var status: Int?
    /// The `Retry-After` seconds of the fault that chose `status`.
    var retryAfterSeconds: Int?
    var dropConnection = false
    /// Handle the request, then close the connection without its response.
    var dropResponse = false
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

  /// Decides the fate of a `method` request to `path`, counting it against the faults it matches.
  func decide(method: String, path: String) -> Decision {
    faults.withLock { faults in
      var decision = Decision()
      for index in faults.indices where faults[index].fault.matches(method: method, path: path) {
        let fault = faults[index].fault
        decision.latency += fault.latency
        if fault.dropConnectionRate > 0, faults[index].generator.nextUnit() < fault.dropConnectionRate {
          decision.dropConnection = true
        }
        if let status = fault.status, fault.rate >= 1 || faults[index].generator.nextUnit() < fault.rate,
          decision.status == nil
        {
          decision.status = status
          decision.retryAfterSeconds = fault.retryAfterSeconds
        }
        if fault.dropResponseRate > 0, faults[index].generator.nextUnit() < fault.dropResponseRate {
          decision.dropResponse = true
        }
        faults[index].remaining = faults[index].remaining.map { $0 - 1 }
      }
      faults.removeAll { ($0.remaining ?? 1) <= 0 }
      return decision
    }
  }
}
