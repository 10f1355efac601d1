import HTTPTypes
import KeelJSON

/// An error of the chat backends (`/v1`, `/images`, `/_sandbox`): `{"errorCode":"E05","message":"…"}`.
struct BackendError: Error, Sendable {
  let status: HTTPResponse.Status
  let code: String
  let message: String

  var response: SandboxResponse {
    .json(["errorCode": .string(code), "message": .string(message)], status: status)
  }

  static let accessTokenInvalid = BackendError(status: .unauthorized, code: "E02", message: "Access token invalid.")
  static let loginFailed = BackendError(status: .unauthorized, code: "E03", message: "Email or password is wrong.")
  static let accessTokenExpired = BackendError(status: .unauthorized, code: "E05", message: "Access token expired.")
  static let refreshTokenInvalid = BackendError(
    status: .unauthorized, code: "E06", message: "Refresh token expired, revoked or invalid; log in again.")
  static let keyRequired = BackendError(
    status: .unauthorized, code: "E401", message: "This Sandbox serves only requests that carry its Sandbox-Key.")
  static let tooLarge = BackendError(status: .contentTooLarge, code: "E413", message: "The request is too large.")

  static func malformed(_ what: String) -> BackendError {
    BackendError(status: .badRequest, code: "E01", message: "Malformed request: \(what).")
  }

  static func notFound(_ what: String) -> BackendError {
    BackendError(status: .notFound, code: "E404", message: "\(what) not found.")
  }

  /// 409 E409: what the request would create exists already.
  static func conflict(_ message: String) -> BackendError {
    BackendError(status: .conflict, code: "E409", message: message)
  }

  /// 507 E507: the Sandbox keeps no more of `what` (a bound on the state a client can make it hold).
  static func full(_ what: String) -> BackendError {
    BackendError(status: HTTPResponse.Status(code: 507), code: "E507", message: "The Sandbox holds no more \(what).")
  }

  static func methodNotAllowed(_ method: HTTPRequest.Method, _ path: String) -> BackendError {
    BackendError(status: .methodNotAllowed, code: "E405", message: "\(method.rawValue) is not allowed on \(path).")
  }
}
