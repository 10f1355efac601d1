import HTTPTypes
import KeelBasics

/// The control plane (SandboxAPI §5): add and clear faults, expire every access token, read the stats, reset.
struct ControlPlane: Sendable {
  let faults: FaultInjector
  let stats: RecordedStatistics
  let expireTokens: @Sendable () -> Void
  let reset: @Sendable () -> Void

  var routes: [Route] {
    [
      Route(.post, "/_sandbox/faults", handler: addFault),
      Route(.delete, "/_sandbox/faults") { _ in
        faults.removeAll()
        return .json([:])
      },
      Route(.post, "/_sandbox/expire-tokens") { _ in
        expireTokens()
        return .json([:])
      },
      Route(.get, "/_sandbox/stats") { _ in .json(stats.json) },
      Route(.post, "/_sandbox/reset") { _ in
        reset()
        return .json([:])
      },
    ]
  }

  private func addFault(_ request: SandboxRequest) throws -> SandboxResponse {
    guard case .object(let body)? = JSONValue.parse(request.body) else {
      throw BackendError.malformed("a fault is a JSON object")
    }
    func number(_ name: String, in range: ClosedRange<Double>) throws -> Double? {
      switch body[name] {
      case nil, .null?: return nil
      case .number(let value)? where range.contains(value): return value
      default: throw BackendError.malformed("\(name) must be a number in \(range)")
      }
    }
    guard case .string(let route)? = body["route"], route == "*" || route.hasPrefix("/") else {
      throw BackendError.malformed(#"route must be a path or "*""#)
    }
    let fault = SandboxFault(
      route: route,
      status: try number("status", in: 200...599).map { Int($0) },
      rate: try number("rate", in: 0...1) ?? 1,
      latency: .milliseconds(try number("latencyMs", in: 0...60_000) ?? 0),
      dropConnectionRate: try number("dropConnectionRate", in: 0...1) ?? 0,
      count: try number("count", in: 1...1_000_000_000).map { Int($0) },
      seed: try number("seed", in: 0...9_007_199_254_740_991).map { UInt64($0) })
    faults.add(fault)
    return .json(["faults": .number(Double(faults.count))])
  }
}
