import AsyncHTTPClient
import Foundation
import KeelConcurrency
import KeelFiles
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Networking

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension NIOHTTPTransport {
  /// Streams a 2xx answer's body to `destination` as it arrives, one chunk in memory at a time; see
  /// `FileTransferTransport/download(_:to:)`.
  ///
  /// The transfer is bounded by the configuration's connect and idle (``NIOHTTPTransportConfiguration/readTimeout``)
  /// timeouts and by cancellation, not by the request's `timeoutInterval`: a large file may take longer than any one
  /// exchange should.
  public func download(_ request: URLRequest, to destination: URL) -> TransferEvents {
    transfer(request) { report in
      let outbound = try Self.outbound(request)
      let response = try await self.client.execute(outbound, deadline: .distantFuture)
      let status = Int(response.status.code)
      let headers = Self.headers(response.headers)
      guard (200..<300).contains(status) else {
        return RawResponse(status: status, headers: headers, body: try await Self.prefix(of: response.body))
      }
      let expected = response.headers.first(name: "content-length").flatMap { Int64($0) }
      let file = try PartialFile(beside: destination)
      var completed: Int64 = 0
      for try await chunk in response.body {
        try chunk.withUnsafeReadableBytes { bytes throws(FileSystemError) in try file.append(bytes) }
        completed += Int64(chunk.readableBytes)
        report(.progress(TransferProgress(completedBytes: completed, expectedBytes: expected)))
      }
      try file.commit()
      return RawResponse(status: status, headers: headers)
    }
  }

  /// Sends `source` as the body of `request`, read from disk as the connection takes it (one 64 KiB chunk in memory
  /// at a time); see `FileTransferTransport/upload(_:fromFile:)`. Progress counts the bytes handed to
  /// the connection.
  ///
  /// Bounded as ``download(_:to:)`` is.
  public func upload(_ request: URLRequest, fromFile source: URL) -> TransferEvents {
    transfer(request) { report in
      let size = try FileChunks(source).size
      let chunks = FileBody(file: source) { completed in
        report(.progress(TransferProgress(completedBytes: completed, expectedBytes: size)))
      }
      var outbound = try Self.outbound(request, body: .stream(chunks, length: .known(size)))
      outbound.headers.replaceOrAdd(name: "Content-Length", value: String(size))
      let response = try await self.client.execute(outbound, deadline: .distantFuture)
      return RawResponse(
        status: Int(response.status.code), headers: Self.headers(response.headers),
        body: try await Self.prefix(of: response.body))
    }
  }

  /// Runs `work` in a task of its own whose events go to the returned stream, ending with its response; ending the
  /// iteration cancels the task. A transfer with no progress for ``NIOHTTPTransportConfiguration/readTimeout`` fails
  /// with `URLError.timedOut`; a file's failure becomes the `URLError` URLSession would report.
  private func transfer(
    _ request: URLRequest,
    _ work: @escaping @Sendable (_ report: @escaping @Sendable (TransferEvent) -> Void) async throws -> RawResponse
  ) -> TransferEvents {
    let (events, continuation) = AsyncThrowingStream<TransferEvent, any Error>.makeStream()
    let idle = IdleWatch(timeout: configuration.readTimeout)
    let task = Task {
      do {
        let response = try await mappingErrors(of: request) {
          try await withThrowingTaskGroup(of: RawResponse?.self) { group in
            group.addTask {
              do {
                return try await work { event in
                  idle.touch()
                  continuation.yield(event)
                }
              } catch let error as FileSystemError {
                throw error.urlError
              }
            }
            group.addTask {
              try await idle.watch()
              return nil
            }
            defer { group.cancelAll() }
            guard let response = try await group.next() ?? nil else { throw URLError(.timedOut) }
            return response
          }
        }
        continuation.yield(.completed(response))
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return TransferEvents(events)
  }

  /// The first `TransferEvent/maxResponseBody` bytes of `body`; the rest is not read.
  private static func prefix(of body: HTTPClientResponse.Body) async throws -> Data {
    var kept = Data()
    for try await chunk in body {
      kept.append(contentsOf: chunk.readableBytesView.prefix(TransferEvent.maxResponseBody - kept.count))
      if kept.count >= TransferEvent.maxResponseBody { break }
    }
    return kept
  }
}

/// A file's bytes as AsyncHTTPClient reads a streamed body: opened afresh at each iteration (a redirect sends it
/// again), one chunk at a time, each chunk counted to `progress` as it is handed over.
private struct FileBody: AsyncSequence, Sendable {
  typealias Element = ByteBuffer

  let file: URL
  let progress: @Sendable (Int64) -> Void

  struct AsyncIterator: AsyncIteratorProtocol {
    let chunks: Result<FileChunks, FileSystemError>
    let progress: @Sendable (Int64) -> Void
    var completed: Int64 = 0

    mutating func next() async throws -> ByteBuffer? {
      try Task.checkCancellation()
      let chunk = try chunks.get().next()
      guard !chunk.isEmpty else { return nil }
      completed += Int64(chunk.count)
      progress(completed)
      return ByteBuffer(data: chunk)
    }
  }

  func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(chunks: Result { () throws(FileSystemError) in try FileChunks(file) }, progress: progress)
  }
}

/// The idle timeout of one transfer: ``watch()`` throws `URLError.timedOut` once ``touch()`` has not been called for
/// `timeout`.
private final class IdleWatch: Sendable {
  private let timeout: Duration
  private let last = Locked(ContinuousClock.now)

  init(timeout: Duration) {
    self.timeout = timeout
  }

  /// Records progress: the idle time starts again.
  func touch() { last.withLock { $0 = .now } }

  /// Returns never; throws `URLError.timedOut` when idle too long, `CancellationError` when cancelled.
  func watch() async throws {
    while true {
      let due = last.withLock { $0 } + timeout
      if ContinuousClock.now >= due { throw URLError(.timedOut) }
      try await Task.sleep(until: due, clock: .continuous)
    }
  }
}
