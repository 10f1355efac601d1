import Foundation

/// An endpoint plus how to read its response: what a call means, as a value.
///
/// ```swift
/// import Foundation
///
/// struct User: Decodable, Sendable {
///   var id: String
///   var displayName: String   // "display_name" in the JSON
/// }
///
/// enum ExampleRouter: Endpoint {
///   case user(id: String)
///   var baseURL: URL { URL(string: "https://api.example.com")! }
///   var path: EndpointPath { switch self { case .user(let id): ["v3", "users", id] } }
///   var method: HTTPMethod { .get }
/// }
///
/// let snakeCase: @Sendable () -> JSONDecoder = {
///   let decoder = JSONDecoder()
///   decoder.keyDecodingStrategy = .convertFromSnakeCase
///   return decoder
/// }
/// var request = APIRequest<User>.json(ExampleRouter.user(id: "alice"), decoder: snakeCase)
/// request.deadline = .seconds(10)   // retries included
/// let user = try await HTTPClient().send(request)
/// print(user.displayName)
/// ```
public struct APIRequest<Response: Sendable>: Sendable {
  /// Where the request goes and what it carries.
  public let endpoint: any Endpoint
  /// The statuses that count as success; others are errors. Default: 200–299.
  public var acceptableStatus: ClosedRange<Int> = 200...299
  /// The most time the whole call may take, retries and their waits included; no retry waits past it.
  public var deadline: Duration?
  /// Reads a successful response.
  public let decode: @Sendable (RawResponse) throws -> Response
  /// Called as the bytes of a body file (``HTTPBody/file(_:contentType:)``) or of a download
  /// (``download(_:to:)``) move, with how far the transfer has come; each attempt starts again from zero. Never
  /// called for a body in memory.
  public var progress: (@Sendable (TransferProgress) -> Void)?
  /// Where a download's body goes (``download(_:to:)``); `nil` for a body read into memory.
  public private(set) var destination: URL?

  /// A request whose successful response `decode` reads.
  public init(_ endpoint: any Endpoint, decode: @escaping @Sendable (RawResponse) throws -> Response) {
    self.endpoint = endpoint
    self.decode = decode
  }
}

extension APIRequest where Response: Decodable {
  /// A request whose response is JSON, read by a fresh decoder from `makeDecoder`.
  public static func json(
    _ endpoint: any Endpoint, decoder makeDecoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
  ) -> APIRequest {
    APIRequest(endpoint) { response in try makeDecoder().decode(Response.self, from: response.body) }
  }
}

extension APIRequest where Response == Data {
  /// A request whose response body is returned as it is.
  public static func data(_ endpoint: any Endpoint) -> APIRequest { APIRequest(endpoint) { $0.body } }
}

extension APIRequest where Response == URL {
  /// A download: a 2xx answer's body streams to `destination`, which appears whole or not at all (the body is written
  /// beside it and moved over it once complete), and the response is `destination`. The client's transport must
  /// stream files (a ``FileTransferTransport``); with another, the client throws `NetworkError.Kind.invalidRequest`
  /// before anything is sent. A status in ``acceptableStatus`` that is not 2xx (a 304 the caller allowed) leaves
  /// `destination` as it was.
  public static func download(_ endpoint: any Endpoint, to destination: URL) -> APIRequest {
    var request = APIRequest(endpoint) { _ in destination }
    request.destination = destination
    return request
  }
}

extension APIRequest where Response == EmptyResponse {
  /// A request whose response body is ignored.
  public static func empty(_ endpoint: any Endpoint) -> APIRequest { APIRequest(endpoint) { _ in EmptyResponse() } }
}

/// The response of a request whose body does not matter.
public struct EmptyResponse: Hashable, Sendable {
  /// The empty response.
  public init() {}
}

/// A decoded response with what came with it: status, headers and how long it took.
public struct APIResponse<Value: Sendable>: Sendable {
  /// The decoded body.
  public let value: Value
  /// The HTTP status.
  public let status: Int
  /// The response's headers, names as the server sent them.
  public let headers: [String: String]
  /// From sending the last attempt to having its whole response, decoding excluded.
  public let duration: Duration
  /// How many attempts it took: 1 unless retried.
  public internal(set) var attempts: Int
}
