import Foundation
import Networking
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A transport that sends nothing and accepts every batch, as the ingestion API does: 200
/// `{"accepted":<events in the batch>,"duplicates":0}`. It counts the requests it was given.
final class EventTrackerAcceptingTransport: HTTPTransport {
  private let requests = Mutex(0)

  /// How many requests it answered.
  var requestCount: Int { requests.withLock { $0 } }

  func send(_ request: URLRequest) async throws -> RawResponse {
    requests.withLock { $0 += 1 }
    let batch = request.httpBody.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    let count = (batch?["events"] as? [Any])?.count ?? 0
    return RawResponse(
      status: 200, headers: ["Content-Type": "application/json"],
      body: Data(#"{"accepted":\#(count),"duplicates":0}"#.utf8))
  }
}
