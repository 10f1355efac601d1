import Foundation
import HTTPTypes
import KeelJSON

/// A request as the Sandbox's handlers see it: headers, decoded query and path parameters, and the whole body.
struct SandboxRequest: Sendable {
  let method: HTTPRequest.Method
  let path: String
  let headers: HTTPFields
  let query: [String: String]
  let body: Data
  /// Raw path parameters; use ``parameter(_:)`` to decode one.
  var rawParameters: [String: Substring]
  /// The tenant, for routes that authenticate with `Api-Token`.
  var tenant: String = ""
  /// The host and port the request named (its `Host`), if it named one.
  var authority: String?

  /// The path parameter `name`, percent-decoded; `nil` when it is missing or its percent-encoding is invalid.
  func parameter(_ name: String) -> String? {
    guard let raw = rawParameters[name] else { return nil }
    // Most parameters have nothing to decode: Foundation's decoding allocates whatever it is given.
    return raw.utf8.contains(UInt8(ascii: "%")) ? String(raw).removingPercentEncoding : String(raw)
  }

  /// The value of the header `name`.
  func header(_ name: String) -> String? {
    HTTPField.Name(name).flatMap { headers[$0] }
  }
}

/// A response: status, JSON or raw body, and headers.
struct SandboxResponse: Sendable {
  var status: HTTPResponse.Status
  var body: Data
  var headers: HTTPFields

  /// A JSON response.
  static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> SandboxResponse {
    SandboxResponse(status: status, body: value.encoded, headers: [.contentType: "application/json"])
  }
}

extension SandboxResponse {
  /// The same response with another status.
  func with(status: HTTPResponse.Status) -> SandboxResponse {
    var response = self
    response.status = status
    return response
  }
}
