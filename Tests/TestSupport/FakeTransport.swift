import Foundation
import KeelConcurrency
import Networking
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A transport that answers from a script, records what it was sent, and fails the test when it is sent more than
/// the script expects (a test double that fails loudly, as isowords' do).
public final class FakeTransport: HTTPTransport {
  /// Answers one request: a response, or a thrown `URLError`.
  public typealias Answer = @Sendable (URLRequest) async throws -> RawResponse

  private let script: Locked<[Answer]>
  private let sent = Locked<[URLRequest]>([])

  /// A transport that answers the first request with the first answer, and so on.
  public convenience init(_ answers: Answer...) {
    self.init(answers)
  }

  /// A transport that answers the first request with the first answer, and so on.
  public init(_ answers: [Answer]) {
    script = Locked(answers)
  }

  /// The requests sent so far, in order.
  public var requests: [URLRequest] { sent.withLock { $0 } }

  /// Answers `request` with the next scripted answer; records an issue when there is none.
  public func send(_ request: URLRequest) async throws -> RawResponse {
    sent.withLock { $0.append(request) }
    guard let answer = script.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
      Issue.record("FakeTransport: unexpected request \(request.httpMethod ?? "") \(request.url?.absoluteString ?? "")")
      throw URLError(.resourceUnavailable)
    }
    return try await answer(request)
  }

  /// An answer with `status` and a JSON body.
  public static func json(_ status: Int, _ body: String, headers: [String: String] = [:]) -> Answer {
    { _ in
      RawResponse(
        status: status, headers: headers.merging(["Content-Type": "application/json"]) { $1 }, body: Data(body.utf8))
    }
  }
}
