import HTTPTypes
import KeelJSON
import Realtime

/// The control plane (SandboxAPI §5): add and clear faults, expire every access token, redraw the images, read the
/// stats and the request journal, reset.
struct ControlPlane: Sendable {
  let faults: FaultInjector
  let stats: RecordedStatistics
  let journal: RequestJournal
  let realtime: SocketIOHub
  let expireTokens: @Sendable () -> Void
  /// Starts a new edition of `/images`, returning its number.
  let redrawImages: @Sendable () -> Int
  let reset: @Sendable () -> Void
  /// The chat's workspaces and conversations with their message counts, as ``state`` shows them.
  let chatSummary: @Sendable () -> JSONValue
  /// The time since the Sandbox started.
  let uptime: @Sendable () -> Duration

  var routes: [Route] {
    [
      Route(.post, "/_sandbox/faults", handler: addFault),
      Route(.get, "/_sandbox/faults") { _ in .json(["faults": faults.json]) },
      Route(.delete, "/_sandbox/faults") { _ in
        faults.removeAll()
        return .json([:])
      },
      Route(.delete, "/_sandbox/faults/:id") { request in
        guard let id = Int(request.rawParameters["id"] ?? ""), faults.remove(id: id) else {
          throw BackendError(status: .notFound, code: "E404", message: "No fault of that number is in force.")
        }
        return .json(["faults": .number(Double(faults.count))])
      },
      Route(.get, "/_sandbox/requests/:id") { request in
        guard let id = Int(request.rawParameters["id"] ?? ""), let detail = journal.detail(of: id) else {
          throw BackendError(status: .notFound, code: "E404", message: "No request of that number is kept.")
        }
        return .json(detail)
      },
      Route(.get, "/_sandbox/state") { _ in .json(state) },
      Route(.post, "/_sandbox/expire-tokens") { _ in
        expireTokens()
        return .json([:])
      },
      Route(.post, "/_sandbox/images/redraw") { _ in .json(["edition": .number(Double(redrawImages()))]) },
      Route(.get, "/_sandbox/stats") { _ in .json(stats.json) },
      // ?method=POST and ?path=/v3/users narrow it down.
      Route(.get, "/_sandbox/requests") { request in
        .json(journal.json(method: request.query["method"], pathPrefix: request.query["path"]))
      },
      Route(.post, "/_sandbox/reset") { _ in
        reset()
        return .json([:])
      },
      Route(.post, "/_sandbox/socketio/faults", handler: addSocketFault),
      Route(.delete, "/_sandbox/socketio/faults") { _ in
        realtime.clearFaults()
        return .json([:])
      },
      Route(.post, "/_sandbox/socketio/emit", handler: pushEvent),
    ]
  }

  /// `{"drop":true}` cuts every socket; `{"silenceMs":N}` sends nothing (pings included) and ignores what comes for N
  /// ms; `{"delayMs":N}` delays every push; `{"duplicate":true}` delivers each push twice; `{"reorderMs":N}` holds
  /// each push a random 0 to N ms, so that pushes close together arrive in any order; `{"loseNext":N}` loses the next
  /// N pushes that would reach a socket, the connections kept. Several at once apply together.
  private func addSocketFault(_ request: SandboxRequest) throws -> SandboxResponse {
    guard case .object(let body)? = JSONValue.parse(request.body) else {
      throw BackendError.malformed("a Socket.IO fault is a JSON object")
    }
    func milliseconds(_ name: String) throws -> Duration? {
      switch body[name] {
      case nil, .null?: return nil
      case .number(let value)? where (0...600_000).contains(value): return .milliseconds(Int64(value))
      default: throw BackendError.malformed("\(name) must be a number of milliseconds in 0...600000")
      }
    }
    let silence = try milliseconds("silenceMs")
    let delay = try milliseconds("delayMs")
    let reorder = try milliseconds("reorderMs")
    if let reorder { realtime.reorderPushes(within: reorder) }
    if let silence { realtime.silence(for: silence) }
    if let delay { realtime.delayPushes(by: delay) }
    if case .bool(let duplicate)? = body["duplicate"] { realtime.duplicatePushes(duplicate) }
    switch body["loseNext"] {
    case nil, .null?: break
    case .number(let count)? where count >= 0 && count <= 10_000 && count == count.rounded():
      realtime.losePushes(Int(count))
    default: throw BackendError.malformed("loseNext must be a whole number from 0 to 10000")
    }
    let dropped = realtime.connectionCount
    if body["drop"] == .bool(true) { realtime.dropAll() }
    return .json(["connections": .number(Double(dropped))])
  }

  /// `{"namespace":"/","room":"r","event":"e","args":[...]}`: emits to every socket of the namespace, or of the room.
  private func pushEvent(_ request: SandboxRequest) throws -> SandboxResponse {
    guard case .object(let body)? = JSONValue.parse(request.body), case .string(let event)? = body["event"],
      !event.isEmpty
    else {
      throw BackendError.malformed(#"a push is {"event":"name","args":[...]} with an optional namespace and room"#)
    }
    let namespace = body["namespace"].flatMap { if case .string(let value) = $0 { value } else { nil } } ?? "/"
    let room = body["room"].flatMap { if case .string(let value) = $0 { value } else { nil } }
    var args: [SocketValue] = []
    if case .array(let values)? = body["args"] {
      args = try values.map { value in
        do { return try SocketValue.resolving(value, attachments: nil) } catch {
          throw BackendError.malformed("args cannot be read")
        }
      }
    }
    let count = realtime.push(namespace: namespace, room: room, event: event, args: args)
    return .json(["delivered": .number(Double(count))])
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
    var method: String?
    switch body["method"] {
    case nil, .null?: method = nil
    case .string(let value)? where ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(value.uppercased()):
      method = value
    default: throw BackendError.malformed("method must be GET, POST, PUT, PATCH or DELETE")
    }
    let fault = SandboxFault(
      route: route, method: method,
      status: try number("status", in: 200...599).map { Int($0) },
      rate: try number("rate", in: 0...1) ?? 1,
      retryAfter: try number("retryAfter", in: 0...86_400).map { .seconds($0) },
      latency: .milliseconds(try number("latencyMs", in: 0...60_000) ?? 0),
      dropConnectionRate: try number("dropConnectionRate", in: 0...1) ?? 0,
      dropResponseRate: try number("dropResponseRate", in: 0...1) ?? 0,
      count: try number("count", in: 1...1_000_000_000).map { Int($0) },
      seed: try number("seed", in: 0...9_007_199_254_740_991).map { UInt64($0) })
    let id = faults.add(fault)
    return .json(["faults": .number(Double(faults.count)), "id": .number(Double(id))])
  }

  /// What the console shows beside the journal, as `GET /_sandbox/state` returns it: the time since the start, the
  /// responses per route and status, the connected sockets, the chat, and the faults in force.
  var state: JSONValue {
    let counts = stats.routeCounts.map { route, status, count -> JSONValue in
      ["route": .string(route), "status": .number(Double(status)), "count": .number(Double(count))]
    }
    return [
      "uptimeMs": .number(uptime().milliseconds.rounded()), "counts": .array(counts),
      "sockets": realtime.socketsJSON, "chat": chatSummary(), "httpFaults": faults.json,
      "socketFaults": realtime.faultsJSON,
    ]
  }
}
