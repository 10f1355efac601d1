import HTTPTypes

/// One route of the contract: a method and a path pattern whose `:name` segments capture path parameters.
struct Route: Sendable {
  typealias Handler = @Sendable (SandboxRequest) async throws -> SandboxResponse

  let method: HTTPRequest.Method
  let segments: [Substring]
  /// The largest body the route reads; a larger one is answered 413 before the handler runs.
  let maxBodySize: Int
  let handler: Handler
  /// The name the stats count it under: its method and pattern (`GET /v3/users/:user_id`).
  let statsKey: String
  /// What the route asks of a request's headers before its body is read (a bearer token): a request it refuses is
  /// answered at once, whatever body it announced.
  private(set) var admits: (@Sendable (SandboxRequest) throws -> Void)?

  init(
    _ method: HTTPRequest.Method, _ pattern: String, maxBodySize: Int = SandboxResponder.maxBodySize,
    handler: @escaping Handler
  ) {
    self.method = method
    self.segments = pattern.split(separator: "/")
    self.statsKey = "\(method.rawValue) /" + segments.joined(separator: "/")
    self.maxBodySize = maxBodySize
    self.handler = handler
  }

  /// This route, asking `check` of a request's headers (its body empty, still unread) before anything else.
  func admitting(_ check: @escaping @Sendable (SandboxRequest) throws -> Void) -> Route {
    var route = self
    route.admits = check
    return route
  }

  /// The raw (still percent-encoded) parameters captured from `path`, or `nil` when the path does not match.
  func match(_ path: [Substring]) -> [String: Substring]? {
    guard path.count == segments.count else { return nil }
    var parameters: [String: Substring] = [:]
    for (pattern, segment) in zip(segments, path) {
      if pattern.first == ":" {
        parameters[String(pattern.dropFirst())] = segment
      } else if pattern != segment {
        return nil
      }
    }
    return parameters
  }
}

/// What a route resolved to: a route with its parameters, a path that exists under other methods, or nothing.
enum RouteResolution {
  case route(Route, parameters: [String: Substring])
  case methodNotAllowed(allowed: [HTTPRequest.Method])
  case notFound

  /// The largest body to read for it: the route's own limit, the default for a path no route takes.
  var maxBodySize: Int {
    guard case .route(let route, _) = self else { return SandboxResponder.maxBodySize }
    return route.maxBodySize
  }

  /// The name the stats count it under: the route's pattern (`GET /v3/users/:user_id`), or `unmatched` for every
  /// request that matches no route, so that a scan of random paths cannot grow the stats without bound.
  var statsKey: String {
    guard case .route(let route, _) = self else { return "unmatched" }
    return route.statsKey
  }
}

extension [Route] {
  /// Resolves `method` and the raw `path` against the table.
  func resolve(_ method: HTTPRequest.Method, path: String) -> RouteResolution {
    let segments = path.split(separator: "/")
    var allowed: [HTTPRequest.Method] = []
    for route in self {
      guard let parameters = route.match(segments) else { continue }
      if route.method == method { return .route(route, parameters: parameters) }
      allowed.append(route.method)
    }
    return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
  }
}
