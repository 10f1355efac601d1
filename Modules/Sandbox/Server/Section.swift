import Foundation
import HTTPTypes

/// The part of the contract a path belongs to; it decides the shape of its errors.
enum Section: Equatable {
  /// `/v3`: the Sendbird Platform API, `{"error":true,"code":…}`.
  case platform
  /// `/v1/events`: event ingestion (tenancy as `/v3`, other errors as the backends).
  case events
  /// `/v1/auth`, `/v1/me` and other `/v1` paths: the chat backend, `{"errorCode":…}`.
  case backend
  /// `/images`.
  case images
  /// `/_sandbox`: the control plane.
  case control
  /// Anything else.
  case unknown

  /// The section of a path from its segments as routing matches them (`path.split(separator: "/")`, empty segments
  /// dropped), so that a path such as `//v3/users` cannot reach a route while escaping its section's rules.
  init(segments: [Substring]) {
    self =
      switch (segments.first, segments.dropFirst().first) {
      case ("v3"?, _): .platform
      case ("v1"?, "events"?): .events
      case ("v1"?, _): .backend
      case ("images"?, _): .images
      case ("_sandbox"?, _): .control
      default: .unknown
      }
  }

  private var isPlatformShaped: Bool { self == .platform || self == .unknown }

  func notFound(_ path: String) -> SandboxResponse {
    isPlatformShaped ? PlatformError.routeNotFound(path).response : BackendError.notFound("Route \(path)").response
  }

  func methodNotAllowed(_ method: HTTPRequest.Method, _ path: String) -> SandboxResponse {
    isPlatformShaped
      ? PlatformError.methodNotAllowed(method, path).response : BackendError.methodNotAllowed(method, path).response
  }

  /// 400 for a request whose body could not be read: `detail` says why.
  func malformedBody(_ detail: String) -> SandboxResponse {
    isPlatformShaped
      ? PlatformError(code: 400_403, message: "Malformed request: \(detail).").response
      : BackendError.malformed(detail).response
  }

  var tooLarge: SandboxResponse { isPlatformShaped ? PlatformError.tooLarge.response : BackendError.tooLarge.response }

  func internalError(_ detail: String) -> SandboxResponse {
    isPlatformShaped
      ? PlatformError(code: 500_901, message: "Internal error: \(detail)").response
      : BackendError(status: .internalServerError, code: "E500", message: "Internal error: \(detail)").response
  }

  /// The response of an injected fault with `status`, with `Retry-After` when `retryAfterSeconds` is set. A 204 or
  /// 304 has no body, as HTTP wants: a body there would be read as the start of the connection's next response.
  func injected(status: Int, retryAfterSeconds: Int? = nil) -> SandboxResponse {
    let status = HTTPResponse.Status(code: status)
    var response =
      if status.code == 204 || status.code == 304 {
        SandboxResponse(status: status, body: Data(), headers: [:])
      } else if isPlatformShaped {
        PlatformError(code: 500_901, message: "Injected fault (\(status.code)).").response.with(status: status)
      } else {
        BackendError(status: status, code: "E\(status.code)", message: "Injected fault.").response
      }
    if let retryAfterSeconds { response.headers[.retryAfter] = String(retryAfterSeconds) }
    return response
  }
}
