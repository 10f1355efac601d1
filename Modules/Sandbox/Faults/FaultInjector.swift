import KeelConcurrency
import KeelJSON
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
    /// 1 for the first fault added, one more for each after it: what `DELETE /_sandbox/faults/{id}` names.
    let id: Int
    var fault: SandboxFault
    var generator: SplitMix64
    var remaining: Int?
  }

  private struct Faults {
    var active: [Active] = []
    var lastID = 0
  }

  private let faults = Locked(Faults())

  init(initial: [SandboxFault]) {
    for fault in initial { add(fault) }
  }

  /// Puts `fault` in force; returns its number.
  @discardableResult
  func add(_ fault: SandboxFault) -> Int {
    let generator = SplitMix64(seed: fault.seed ?? UInt64.random(in: .min ... .max))
    return faults.withLock { faults in
      faults.lastID += 1
      faults.active.append(Active(id: faults.lastID, fault: fault, generator: generator, remaining: fault.count))
      return faults.lastID
    }
  }

  /// Removes every fault.
  func removeAll() { faults.withLock { $0.active = [] } }

  /// Removes the fault numbered `id`; whether it was in force.
  func remove(id: Int) -> Bool {
    faults.withLock { faults in
      guard let index = faults.active.firstIndex(where: { $0.id == id }) else { return false }
      faults.active.remove(at: index)
      return true
    }
  }

  /// How many faults are in force.
  var count: Int { faults.withLock { $0.active.count } }

  /// The faults in force, in the order they apply, as `GET /_sandbox/faults` lists them: each with its number and
  /// what it does, `remaining` the requests it still applies to (`null`: every one).
  var json: JSONValue {
    let active = faults.withLock { $0.active }
    return .array(
      active.map { active in
        let fault = active.fault
        return .object([
          "id": .number(Double(active.id)), "route": .string(fault.route),
          "method": fault.method.map { .string($0.uppercased()) } ?? .null,
          "status": fault.status.map { .number(Double($0)) } ?? .null, "rate": .number(fault.rate),
          "retryAfter": fault.retryAfter.map { .number($0.milliseconds / 1e3) } ?? .null,
          "latencyMs": .number(fault.latency.milliseconds),
          "dropConnectionRate": .number(fault.dropConnectionRate), "dropResponseRate": .number(fault.dropResponseRate),
          "remaining": active.remaining.map { .number(Double($0)) } ?? .null,
        ])
      })
  }

  /// Decides the fate of a `method` request to `path`, counting it against the faults it matches.
  func decide(method: String, path: String) -> Decision {
    faults.withLock { all in
      var decision = Decision()
      for index in all.active.indices where all.active[index].fault.matches(method: method, path: path) {
        let fault = all.active[index].fault
        decision.latency += fault.latency
        if fault.dropConnectionRate > 0, all.active[index].generator.nextUnit() < fault.dropConnectionRate {
          decision.dropConnection = true
        }
        if let status = fault.status, fault.rate >= 1 || all.active[index].generator.nextUnit() < fault.rate,
          decision.status == nil
        {
          decision.status = status
          decision.retryAfterSeconds = fault.retryAfterSeconds
        }
        if fault.dropResponseRate > 0, all.active[index].generator.nextUnit() < fault.dropResponseRate {
          decision.dropResponse = true
        }
        all.active[index].remaining = all.active[index].remaining.map { $0 - 1 }
      }
      all.active.removeAll { ($0.remaining ?? 1) <= 0 }
      return decision
    }
  }
}
