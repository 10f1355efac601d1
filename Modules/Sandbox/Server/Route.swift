import HTTPTypes

/// One route of the contract: a method and a path pattern whose `:name` segments capture path parameters.
struct Route: Sendable {
  typealias Handler = @Sendable (SandboxRequest) async throws -> SandboxResponse

  let method: HTTPRequest.Method
  let segments: [Substring]
  let handler: Handler

  init(_ method: HTTPRequest.Method, _ pattern: String, handler: @escaping Handler) {
    self.method = method
    self.segments = pattern.split(separator: "/")
    self.handler = handler
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

/// What a route resolved to: a handler with its parameters, a path that exists under other methods, or nothing.
enum RouteResolution {
  case handler(Route.Handler, parameters: [String: Substring])
  case methodNotAllowed(allowed: [HTTPRequest.Method])
  case notFound
}

extension [Route] {
  /// Resolves `method` and the raw `path` against the table.
  func resolve(_ method: HTTPRequest.Method, path: String) -> RouteResolution {
    let segments = path.split(separator: "/")
    var allowed: [HTTPRequest.Method] = []
    for route in self {
      guard let parameters = route.match(segments) else { continue }
      if route.method == method { return .handler(route.handler, parameters: parameters) }
      allowed.append(route.method)
    }
    return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
  }
}
