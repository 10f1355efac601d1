import Foundation
import Networking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A transport with no network: it answers every request at once, without suspending, with the same response. What
/// is left to measure is everything above the transport.
struct FixedResponseTransport: HTTPTransport {
  let response: RawResponse

  /// The Sandbox's 200 answer to `GET /v3/users/bench-user`.
  static let benchUser = FixedResponseTransport(
    response: RawResponse(
      status: 200, headers: ["Content-Type": "application/json"], body: Data(BenchUser.responseBody.utf8)))

  func send(_ request: URLRequest) async throws -> RawResponse { response }
}
