import HTTPTypes
import KeelJSON

/// An error of the Sendbird Platform API subset: `{"error":true,"code":…,"message":…}` with the contract's status.
struct PlatformError: Error, Sendable {
  let code: Int
  let message: String

  /// HTTP 400 for 4001xx–4002xx (and 400403), 401 for 400401, 404 for 400404, 405, 413, 429, 500 for 5009xx.
  var status: HTTPResponse.Status {
    switch code {
    case 400_401: .unauthorized
    case 400_404: .notFound
    case 400_405: .methodNotAllowed
    case 400_413: .contentTooLarge
    case 500_910: .tooManyRequests
    case 500_000...: .internalServerError
    default: .badRequest
    }
  }

  var response: SandboxResponse {
    .json(["error": true, "code": .number(Double(code)), "message": .string(message)], status: status)
  }

  static let invalidAPIToken = PlatformError(code: 400_401, message: #"Invalid value: "Api-Token"."#)
  static let userNotFound = PlatformError(code: 400_201, message: #""User" not found."#)
  static let userExists = PlatformError(code: 400_202, message: #""User" violated a unique constraint."#)
  static let notJSON = PlatformError(code: 400_403, message: "The request body is not valid JSON.")
  static let tooLarge = PlatformError(code: 400_413, message: "The request body is larger than 1 MiB.")
  static let invalidLimit = PlatformError(code: 400_111, message: #"Invalid value: "limit" must be 1 to 100."#)
  static let invalidPageToken = PlatformError(code: 400_109, message: #"Invalid value: "token"."#)

  static func missing(_ field: String) -> PlatformError {
    PlatformError(code: 400_105, message: #"Missing required field: "\#(field)"."#)
  }

  static func tooLong(_ field: String, max: Int) -> PlatformError {
    PlatformError(code: 400_110, message: #""\#(field)" is longer than \#(max) characters."#)
  }

  /// A value of the wrong type or shape (Sendbird's 400100).
  static func invalid(_ field: String) -> PlatformError {
    PlatformError(code: 400_100, message: #"Invalid value: "\#(field)"."#)
  }

  static func routeNotFound(_ path: String) -> PlatformError {
    PlatformError(code: 400_404, message: "No route for \(path).")
  }

  static func methodNotAllowed(_ method: HTTPRequest.Method, _ path: String) -> PlatformError {
    PlatformError(code: 400_405, message: "\(method.rawValue) is not allowed on \(path).")
  }

  static func tooManyRequests(_ policy: String) -> PlatformError {
    PlatformError(code: 500_910, message: "Too many requests (\(policy)).")
  }
}
