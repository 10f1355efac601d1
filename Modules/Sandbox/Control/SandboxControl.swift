import Foundation
import Networking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A client of a Sandbox's control plane (`/_sandbox`, SandboxAPI §5): what tests, examples and the demo use to
/// cause faults, expire tokens and count what the Sandbox answered. Loopback only, as the control plane is.
///
/// ```swift
/// let sandbox = try await Sandbox.start()
/// try await sandbox.control.addFault(SandboxFault(route: "/v1/events/batch", status: 503, rate: 0.3))
/// // … the code under test talks to sandbox.baseURL
/// let stats = try await sandbox.control.statistics()
/// print(stats.counter("refreshes"), stats.responses("POST /v3/users", status: 200))
/// ```
public struct SandboxControl: Sendable {
  /// The Sandbox's base URL.
  public let baseURL: URL
  /// The key sent in `Sandbox-Key`, for a Sandbox started with a control or access key.
  private let key: String?
  private let session = URLSession(configuration: .ephemeral)

  /// A client of the Sandbox at `baseURL`, such as one `keel sandbox serve` printed; `key` is the control key it was
  /// started with (`--control-key`), if any.
  public init(baseURL: URL, key: String? = nil) {
    self.baseURL = baseURL
    self.key = key
  }

  /// What the Sandbox answered since it started (or was reset): `GET /_sandbox/stats`.
  public func statistics() async throws -> SandboxStatistics {
    let data = try await send("GET", "stats")
    return try SandboxStatistics(json: data)
  }

  /// Expires every access token now: the next authenticated call gets `E05` and must refresh.
  public func expireTokens() async throws {
    _ = try await send("POST", "expire-tokens")
  }

  /// Redraws every image of `/images` in other colours under a new `ETag`, as when a server's images are replaced: a
  /// client's revalidation then gets a 200 with the new bytes rather than a 304.
  public func redrawImages() async throws {
    _ = try await send("POST", "images/redraw")
  }

  /// Adds `fault` to the faults in force.
  public func addFault(_ fault: SandboxFault) async throws {
    var body: [String: Any] = [
      "route": fault.route, "rate": fault.rate, "dropConnectionRate": fault.dropConnectionRate,
      "latencyMs": Double(fault.latency.components.seconds * 1_000)
        + Double(fault.latency.components.attoseconds) / 1e15,
    ]
    if let method = fault.method { body["method"] = method }
    if fault.dropResponseRate > 0 { body["dropResponseRate"] = fault.dropResponseRate }
    if let status = fault.status { body["status"] = status }
    if let seconds = fault.retryAfterSeconds { body["retryAfter"] = seconds }
    if let count = fault.count { body["count"] = count }
    if let seed = fault.seed { body["seed"] = seed }
    _ = try await send("POST", "faults", body: try JSONSerialization.data(withJSONObject: body))
  }

  /// Removes every fault.
  public func removeFaults() async throws {
    _ = try await send("DELETE", "faults")
  }

  /// Applies Socket.IO faults (SandboxAPI §6): `drop` cuts every socket now, `silence` makes the server send nothing
  /// (pings included) and ignore what comes for that long, `delay` holds every push that long, `duplicate` delivers
  /// each push twice (or, `false`, once again), `reorder` holds each push a random time up to that long so that pushes
  /// close together arrive in any order, `loseNext` loses the next pushes that would reach a socket, the connections
  /// kept. ``removeSocketIOFaults()`` ends them.
  ///
  /// - Returns: How many sockets were connected as the faults took effect: with `drop`, how many were cut.
  @discardableResult
  public func socketIOFault(
    drop: Bool = false, silence: Duration? = nil, delay: Duration? = nil, duplicate: Bool? = nil,
    reorder: Duration? = nil, loseNext: Int? = nil
  ) async throws -> Int {
    func milliseconds(_ duration: Duration) -> Double {
      Double(duration.components.seconds * 1_000) + Double(duration.components.attoseconds) / 1e15
    }
    var body: [String: Any] = [:]
    if drop { body["drop"] = true }
    if let silence { body["silenceMs"] = milliseconds(silence) }
    if let delay { body["delayMs"] = milliseconds(delay) }
    if let duplicate { body["duplicate"] = duplicate }
    if let reorder { body["reorderMs"] = milliseconds(reorder) }
    if let loseNext { body["loseNext"] = loseNext }
    return try await count("connections", answering: "socketio/faults", body)
  }

  /// Ends every Socket.IO fault.
  public func removeSocketIOFaults() async throws {
    _ = try await send("DELETE", "socketio/faults")
  }

  /// Emits `event` with `args` (JSON values: strings, numbers, booleans, arrays, dictionaries, `NSNull`) to every
  /// socket of `namespace`, or of `room` there; returns how many sockets it went to.
  @discardableResult
  public func pushSocketIOEvent(_ event: String, args: [Any] = [], namespace: String = "/", room: String? = nil)
    async throws -> Int
  {
    var body: [String: Any] = ["event": event, "args": args, "namespace": namespace]
    if let room { body["room"] = room }
    return try await count("delivered", answering: "socketio/emit", body)
  }

  /// An identity token signed by the Sandbox playing `provider` (`apple` or `kakao`), as the provider's SDK gives an
  /// app: for the user `subject`, with `email` (verified by the provider, or not) and the claim of `nonce` (Apple's is
  /// its SHA-256), for `audience`
  /// (the Sandbox's own by default), valid for `lifetime` (negative for one already expired).
  ///
  /// ```swift
  /// let sandbox = try await Sandbox.start()
  /// let token = try await sandbox.control.identityToken(from: "kakao", subject: "4242", nonce: "n-1")
  /// print(token.split(separator: ".").count)   // 3: a JWT to hand SessionManager.signIn(with:idToken:nonce:)
  /// ```
  public func identityToken(
    from provider: String, subject: String, email: String? = nil, emailVerified: Bool = true, nonce: String? = nil,
    audience: String? = nil, lifetime: Duration = .seconds(600)
  ) async throws -> String {
    var body: [String: Any] = ["sub": subject, "expiresIn": Double(lifetime.components.seconds)]
    if let email {
      body["email"] = email
      body["emailVerified"] = emailVerified
    }
    if let nonce { body["nonce"] = nonce }
    if let audience { body["audience"] = audience }
    let data = try await send(
      "POST", "providers/\(provider)/tokens", body: try JSONSerialization.data(withJSONObject: body))
    guard let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any],
      let token = answer["idToken"] as? String
    else { throw SandboxError(description: "POST /_sandbox/providers/\(provider)/tokens answered no idToken.") }
    return token
  }

  /// Wipes every user, session, event and counter.
  public func reset() async throws {
    _ = try await send("POST", "reset")
  }

  /// POSTs `body` as JSON to `path` and reads the number `field` of the answer (0 when it has none).
  private func count(_ field: String, answering path: String, _ body: [String: Any]) async throws -> Int {
    let data = try await send("POST", path, body: try JSONSerialization.data(withJSONObject: body))
    let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    return (answer?[field] as? NSNumber)?.intValue ?? 0
  }

  private func send(_ method: String, _ path: String, body: Data? = nil) async throws -> Data {
    var request = URLRequest(url: baseURL.appendingPathComponent("_sandbox/" + path))
    request.httpMethod = method
    if let key { request.setValue(key, forHTTPHeaderField: "Sandbox-Key") }
    if let body {
      request.httpBody = body
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    let (data, response) = try await session.dataCancellingSafely(for: request)
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard (200..<300).contains(status) else {
      throw SandboxError(
        description: "\(method) /_sandbox/\(path) answered \(status): \(String(decoding: data, as: UTF8.self))")
    }
    return data
  }
}

/// What a Sandbox answered, from `GET /_sandbox/stats`: counters, and responses per route and status.
public struct SandboxStatistics: Sendable, Hashable {
  /// Counters by name: `logins`, `refreshes`, `imageHits`, `imageRenders`, `eventUniques`, `eventDuplicates`,
  /// `droppedConnections`.
  public var counters: [String: Int]
  /// Responses per route pattern (such as `POST /v3/users` or `GET /v3/users/:user_id`) and status.
  public var routes: [String: [Int: Int]]

  /// The counter `name`; 0 when nothing counted it yet.
  public func counter(_ name: String) -> Int { counters[name] ?? 0 }

  /// How many responses of `status` the Sandbox gave to `route`.
  public func responses(_ route: String, status: Int) -> Int { routes[route]?[status] ?? 0 }

  /// How many requests to `route` the Sandbox answered, whatever the status.
  public func requests(_ route: String) -> Int { routes[route]?.values.reduce(0, +) ?? 0 }

  init(json data: Data) throws {
    guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      throw SandboxError(description: "The Sandbox's statistics are not a JSON object.")
    }
    var counters: [String: Int] = [:]
    var routes: [String: [Int: Int]] = [:]
    for (name, value) in object {
      if let number = value as? NSNumber {
        counters[name] = number.intValue
      } else if name == "routes", let byRoute = value as? [String: Any] {
        for case (let route, let statuses as [String: Any]) in byRoute {
          for case (let status, let count as NSNumber) in statuses {
            if let status = Int(status) { routes[route, default: [:]][status] = count.intValue }
          }
        }
      }
    }
    self.counters = counters
    self.routes = routes
  }
}

extension RunningSandbox {
  /// A client of this Sandbox's control plane.
  public var control: SandboxControl { SandboxControl(baseURL: baseURL, key: controlKey) }
}
