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
    // The literal segments first: a route that does not match costs no dictionary.
    for (pattern, segment) in zip(segments, path) where pattern.first != ":" && pattern != segment { return nil }
    var parameters: [String: Substring] = [:]
    for (pattern, segment) in zip(segments, path) where pattern.first == ":" {
      parameters[String(pattern.dropFirst())] = segment
    }
    return parameters
  }
}

/// The routes, grouped by their number of segments, which a path must have to match: a request is matched against
/// the few routes of its own length, in the order they were given.
struct RouteTable: Sendable {
  private let byLength: [Int: [Route]]

  init(_ routes: [Route]) {
    byLength = Dictionary(grouping: routes) { $0.segments.count }
  }

  /// Resolves `method` and the raw path's segments (`path.split(separator: "/")`) against the table.
  func resolve(_ method: HTTPRequest.Method, segments: [Substring]) -> RouteResolution {
    var allowed: [HTTPRequest.Method] = []
    for route in byLength[segments.count] ?? [] {
      guard let parameters = route.match(segments) else { continue }
      if route.method == method { return .route(route, parameters: parameters) }
      allowed.append(route.method)
    }
    return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
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
