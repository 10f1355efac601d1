import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The default transport: one long-lived `URLSession` (FoundationNetworking on Linux). Cancelling the calling task
/// cancels the transfer, on Linux too without FoundationNetworking's deadlock (see
/// `URLSession.dataCancellingSafely(for:)`).
public struct URLSessionTransport: HTTPTransport {
  /// The session every request goes through.
  public let session: URLSession

  /// A transport over `session`; by default a session of its own with an ephemeral configuration (no shared cookie
  /// or cache state between clients).
  public init(session: URLSession = URLSession(configuration: .ephemeral)) {
    self.session = session
  }

  /// Sends `request` with a data task of `session`, as `URLSession.data(for:)` would.
  public func send(_ request: URLRequest) async throws -> RawResponse {
    let (data, response) = try await session.dataCancellingSafely(for: request)
    guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
    return RawResponse(status: http.statusCode, headers: Self.headers(of: http), body: data)
  }

  /// The headers of `response`, as strings.
  static func headers(of response: HTTPURLResponse) -> [String: String] {
    let fields = response.allHeaderFields
    var headers: [String: String] = [:]
    headers.reserveCapacity(fields.count)
    for (name, value) in fields {
      // A cast, not interpolation: interpolating `Any` costs about half a microsecond per header on Linux.
      if let name = name as? String { headers[name] = value as? String ?? "\(value)" }
    }
    return headers
  }
}
