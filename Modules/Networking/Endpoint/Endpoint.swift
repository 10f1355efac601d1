import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Everything about a call except how its response is read: where it goes, with which method, headers, query and
/// body (REQUIREMENTS A1). Routers are enums that conform, one per API area.
///
/// ```swift
/// import Foundation
///
/// enum ExampleRouter: Endpoint {
///   case user(id: String)
///   var baseURL: URL { URL(string: "https://api.example.com")! }
///   var path: EndpointPath { switch self { case .user(let id): ["v3", "users", id] } }
///   var method: HTTPMethod { .get }
/// }
/// ```
public protocol Endpoint: URLRequestConvertible, Sendable {
  /// The scheme, host and any path prefix, for example `https://api.example.com/v2`.
  var baseURL: URL { get }
  /// The path below `baseURL`, as segments encoded one by one.
  var path: EndpointPath { get }
  /// The HTTP method, which also decides whether ``RetryPolicy`` may send the call again.
  var method: HTTPMethod { get }
  /// Headers to send; default none.
  var headers: [String: String] { get }
  /// The query; default none.
  var query: [QueryItem] { get }
  /// The body; default none.
  var body: HTTPBody { get }
  /// How long the transfer may take; default the transport's own.
  var timeout: Duration? { get }
}

extension Endpoint {
  /// No headers.
  public var headers: [String: String] { [:] }
  /// No query.
  public var query: [QueryItem] { [] }
  /// No body.
  public var body: HTTPBody { .empty }
  /// The transport's timeout.
  public var timeout: Duration? { nil }

  /// The `URLRequest` for this endpoint: `baseURL`, then the encoded path, then the encoded query.
  ///
  /// - Throws: ``NetworkError`` of kind `NetworkError.Kind.invalidRequest` when the URL cannot be formed or the body
  ///   cannot be encoded.
  public func urlRequest() throws -> URLRequest {
    var text = baseURL.absoluteString
    while text.hasSuffix("/") { text.removeLast() }
    text += path.encoded
    if !query.isEmpty {
      text +=
        "?"
        + query.map { PercentEncoding.queryComponent($0.name) + "=" + PercentEncoding.queryComponent($0.value) }
        .joined(separator: "&")
    }
    guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
      throw NetworkError.invalidRequest("cannot form a URL from base \(baseURL) and path \(path)")
    }
    var request = URLRequest(url: url)
    // GET is a URLRequest's own method; setting it anyway costs a case-insensitive compare in FoundationNetworking.
    if method != .get { request.httpMethod = method.rawValue }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    do {
      request.httpBody = try body.encode()
    } catch {
      throw NetworkError.invalidRequest("cannot encode the body of \(method) \(path): \(error)")
    }
    if let contentType = body.contentType, request.value(forHTTPHeaderField: "Content-Type") == nil {
      request.setValue(contentType, forHTTPHeaderField: "Content-Type")
    }
    if let timeout {
      request.timeoutInterval = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    }
    return request
  }
}

/// Something that becomes a `URLRequest`.
public protocol URLRequestConvertible {
  /// The `URLRequest` this endpoint describes: base URL, encoded path and query, method, headers and body.
  ///
  /// - Throws: ``NetworkError`` of kind `NetworkError.Kind.invalidRequest` when it cannot be built.
  func urlRequest() throws -> URLRequest
}
