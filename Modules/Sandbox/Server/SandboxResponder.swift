import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Turns each HTTP request into a contract response: reads the body (at most 1 MiB), applies `/v3`'s rate limits
/// and `Api-Token` tenancy, and dispatches to the route's handler. Every error, including unknown routes and wrong
/// methods, comes back as the contract's JSON.
struct SandboxResponder: HTTPResponder {
  typealias Context = BasicRequestContext

  /// The largest request body accepted.
  static let maxBodySize = 1 << 20

  let configuration: SandboxConfiguration
  let users = UsersAPI()
  let rateLimiter: ServerRateLimiter
  let routes: [Route]

  init(configuration: SandboxConfiguration) {
    self.configuration = configuration
    self.rateLimiter = ServerRateLimiter(limits: configuration.rateLimits)
    self.routes = users.routes
  }

  func respond(to request: Request, context: Context) async throws -> Response {
    var request = request
    let path = request.uri.path
    let response: SandboxResponse
    do {
      let body = try await request.collectBody(upTo: Self.maxBodySize)
      let sandboxRequest = SandboxRequest(
        method: request.method, path: path, headers: request.headers,
        query: Dictionary(request.uri.queryParameters.map { (String($0.key), String($0.value)) }) { $1 },
        body: Data(body.readableBytesView), rawParameters: [:])
      // Only the Platform API (/v3) is served so far; every other path is an unknown route.
      response =
        path == "/v3" || path.hasPrefix("/v3/")
        ? await platformResponse(to: sandboxRequest) : PlatformError.routeNotFound(path).response
    } catch {
      response = PlatformError.tooLarge.response
    }
    return Response(
      status: response.status, headers: response.headers,
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
  }

  /// `/v3`: rate limit (keyed by the token as sent, so that every response carries the headers), then tenancy,
  /// then the route.
  private func platformResponse(to request: SandboxRequest) async -> SandboxResponse {
    let token = request.header("Api-Token") ?? ""
    let decision = configuration.rateLimitsEnabled ? rateLimiter.admit(tenant: token, method: request.method) : nil
    var response: SandboxResponse
    if let decision, !decision.allowed {
      response = PlatformError.tooManyRequests("\(decision.limit);w=1").response
    } else if token.isEmpty || !(configuration.apiTokens.isEmpty || configuration.apiTokens.contains(token)) {
      response = PlatformError.invalidAPIToken.response
    } else {
      var request = request
      request.tenant = token
      response = await dispatch(request)
    }
    if let decision { response.headers.append(contentsOf: decision.headers) }
    return response
  }

  private func dispatch(_ request: SandboxRequest) async -> SandboxResponse {
    switch routes.resolve(request.method, path: request.path) {
    case .handler(let handler, let parameters):
      let routed = SandboxRequest(
        method: request.method, path: request.path, headers: request.headers, query: request.query,
        body: request.body, rawParameters: parameters, tenant: request.tenant)
      do {
        return try await handler(routed)
      } catch let error as PlatformError {
        return error.response
      } catch {
        return PlatformError(code: 500_901, message: "Internal error: \(error)").response
      }
    case .methodNotAllowed(let allowed):
      var response = PlatformError.methodNotAllowed(request.method, request.path).response
      response.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
      return response
    case .notFound:
      return PlatformError.routeNotFound(request.path).response
    }
  }
}
