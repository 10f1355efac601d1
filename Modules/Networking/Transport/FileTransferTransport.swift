import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A transport that moves large bodies between the network and files without holding them in memory, reporting
/// progress as it goes: the image loader's network level and the chat's image uploads use it.
///
/// ```swift
/// import Foundation
/// #if canImport(FoundationNetworking)
///   import FoundationNetworking
/// #endif
///
/// func fetch(_ url: URL, to file: URL, over transport: some FileTransferTransport) async throws -> Int {
///   for try await event in transport.download(URLRequest(url: url), to: file) {
///     switch event {
///     case .progress(let progress): print("\(progress.completedBytes) of \(progress.expectedBytes ?? -1) bytes")
///     case .completed(let response): return response.status
///     }
///   }
///   return 0  // not reached: the events end with the response, or throw
/// }
/// ```
///
/// Each transfer is a sequence of ``TransferEvent``s that ends with one ``TransferEvent/completed(_:)``, or throws
/// what a ``HTTPTransport/send(_:)`` would (a `URLError`, or `CancellationError`). Cancelling the task that iterates
/// it, or leaving the loop early, cancels the transfer.
public protocol FileTransferTransport: HTTPTransport {
  /// Sends `request` and streams a 2xx answer's body to `destination`, which appears whole or not at all: the body is
  /// written to a temporary owner-only file beside it and moved over it once complete (replacing a file there).
  ///
  /// Any other status leaves `destination` untouched, and its body (at most 64 KiB) is in the completed response; a
  /// 2xx answer's body is empty there.
  func download(_ request: URLRequest, to destination: URL) -> TransferEvents

  /// Sends `request` with the contents of `source` as its body, read from disk as it is sent, with a
  /// `Content-Length` of the file's size. The response's body (at most 64 KiB) is in the completed response.
  func upload(_ request: URLRequest, fromFile source: URL) -> TransferEvents
}

/// The events of one transfer, for one reader: progress, then the response.
///
/// Unlike a bare `AsyncThrowingStream`, whose loop simply ends when the reading task is cancelled, a transfer cut
/// short by cancellation throws `CancellationError`: a loop that ends normally has seen the response.
public struct TransferEvents: AsyncSequence, Sendable {
  /// Each event is progress or the response.
  public typealias Element = TransferEvent

  private let stream: AsyncThrowingStream<TransferEvent, any Error>

  /// The events `stream` delivers; the transport that feeds it ends it after ``TransferEvent/completed(_:)``, and
  /// cancels its work when the stream is terminated.
  public init(_ stream: AsyncThrowingStream<TransferEvent, any Error>) {
    self.stream = stream
  }

  /// Reads the events in order.
  public struct AsyncIterator: AsyncIteratorProtocol {
    var base: AsyncThrowingStream<TransferEvent, any Error>.AsyncIterator
    var completed = false

    /// The next event; `nil` after the response; throws `CancellationError` when the reading task was cancelled
    /// before it.
    public mutating func next() async throws -> TransferEvent? {
      guard let event = try await base.next() else {
        if !completed { throw Task.isCancelled ? CancellationError() : URLError(.cancelled) }
        return nil
      }
      if case .completed = event { completed = true }
      return event
    }
  }

  /// An iterator over the events.
  public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }

  /// Waits for the transfer to finish, handing each step of progress to `progress` (none by default), and returns
  /// the response.
  public func response(progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws -> RawResponse {
    for try await event in self {
      switch event {
      case .progress(let step): progress?(step)
      case .completed(let response): return response
      }
    }
    throw CancellationError()  // unreachable: the iterator throws when the events end without a response
  }
}

/// What a transfer reports: progress, then its response.
public enum TransferEvent: Sendable, Equatable {
  /// More bytes have moved.
  case progress(TransferProgress)
  /// The transfer is over and the server answered; the last event.
  case completed(RawResponse)

  /// The most of a response body a completed transfer carries (an error page, an upload's answer): 64 KiB.
  public static let maxResponseBody = 64 * 1_024
}

/// How far a transfer has come.
public struct TransferProgress: Sendable, Equatable {
  /// The body bytes sent (an upload) or received (a download) so far.
  public var completedBytes: Int64
  /// The body's full size, when it is known: the file's size for an upload, the `Content-Length` for a download.
  public var expectedBytes: Int64?

  /// Progress of `completedBytes` out of `expectedBytes`.
  public init(completedBytes: Int64, expectedBytes: Int64?) {
    self.completedBytes = completedBytes
    self.expectedBytes = expectedBytes
  }

  /// The share done, from 0 to 1, when the full size is known.
  public var fractionCompleted: Double? {
    guard let expectedBytes, expectedBytes > 0 else { return nil }
    return min(1, Double(completedBytes) / Double(expectedBytes))
  }
}

extension RawResponse: Equatable {
  /// Two responses are equal when status, headers and body are.
  public static func == (lhs: RawResponse, rhs: RawResponse) -> Bool {
    lhs.status == rhs.status && lhs.headers == rhs.headers && lhs.body == rhs.body
  }
}
