import Foundation
import KeelFiles

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension URLSessionTransport: FileTransferTransport {
  /// Downloads with a `URLSessionDownloadTask` in a session of its own (the transport's configuration, a delegate for
  /// progress); see ``FileTransferTransport/download(_:to:)``.
  ///
  /// On Linux, prefer `NIOHTTPTransport`: cancelling a FoundationNetworking transfer in flight has crashed the process
  /// (a `TaskRegistry` fatal error in libcurl's glue), and a transfer ends only when it completes or times out.
  public func download(_ request: URLRequest, to destination: URL) -> TransferEvents {
    transfer(TransferDelegate(destination: destination)) { session in session.downloadTask(with: request) }
  }

  /// Uploads with a `URLSessionUploadTask` from the file, which URLSession reads as it sends; see
  /// ``FileTransferTransport/upload(_:fromFile:)``. On Linux, prefer `NIOHTTPTransport`, as for downloads.
  public func upload(_ request: URLRequest, fromFile source: URL) -> TransferEvents {
    let size: Int64
    do {
      size = try FileChunks(source).size
    } catch {
      return TransferEvents(AsyncThrowingStream { $0.finish(throwing: error.urlError) })
    }
    var request = request
    request.setValue(String(size), forHTTPHeaderField: "Content-Length")
    return transfer(TransferDelegate(destination: nil)) { [request] session in
      session.uploadTask(with: request, fromFile: source)
    }
  }

  private func transfer(
    _ delegate: TransferDelegate, _ makeTask: (URLSession) -> URLSessionTask
  ) -> TransferEvents {
    let (events, continuation) = AsyncThrowingStream<TransferEvent, any Error>.makeStream()
    delegate.continuation = continuation
    let session = URLSession(configuration: session.configuration, delegate: delegate, delegateQueue: nil)
    let task = makeTask(session)
    continuation.onTermination = { termination in
      if case .cancelled = termination { task.cancel() }
      session.finishTasksAndInvalidate()
    }
    task.resume()
    return TransferEvents(events)
  }
}

/// Turns one transfer's delegate calls into its events.
///
/// `@unchecked Sendable`: URLSession calls a delegate on its session's delegate queue, a serial `OperationQueue`
/// (the session is made with `delegateQueue: nil`, which creates one), and `continuation` is set before the task is
/// resumed; so every mutable property is touched by one thread at a time.
private final class TransferDelegate: NSObject, URLSessionDownloadDelegate, URLSessionDataDelegate,
  @unchecked Sendable  // one serial delegate queue touches its state, one thread at a time (see above)
{
  let destination: URL?
  var continuation: AsyncThrowingStream<TransferEvent, any Error>.Continuation?
  private var body = Data()
  private var failure: (any Error)?

  init(destination: URL?) {
    self.destination = destination
  }

  func urlSession(
    _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
  ) {
    continuation?.yield(
      .progress(
        TransferProgress(
          completedBytes: totalBytesWritten,
          expectedBytes: totalBytesExpectedToWrite > 0 ? totalBytesExpectedToWrite : nil)))
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
    totalBytesExpectedToSend: Int64
  ) {
    continuation?.yield(
      .progress(
        TransferProgress(
          completedBytes: totalBytesSent, expectedBytes: totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil))
    )
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    body.append(data.prefix(TransferEvent.maxResponseBody - body.count))
  }

  /// The file URLSession wrote is removed when this returns: a 2xx answer is copied beside the destination and
  /// renamed over it; another keeps its first bytes as the error body.
  func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
    guard let destination else { return }
    let status = (downloadTask.response as? HTTPURLResponse)?.statusCode ?? 0
    do {
      let chunks = try FileChunks(location)
      guard (200..<300).contains(status) else {
        body = try chunks.next(limit: TransferEvent.maxResponseBody)
        return
      }
      let file = try PartialFile(beside: destination)
      while true {
        let chunk = try chunks.next()
        if chunk.isEmpty { break }
        try chunk.withUnsafeBytes { bytes in try file.append(bytes) }
      }
      try file.commit()
    } catch let error as FileSystemError {
      failure = error.urlError
    } catch {
      failure = error
    }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    defer { continuation = nil }
    if let error = error ?? failure {
      continuation?.finish(throwing: error)
      return
    }
    guard let http = task.response as? HTTPURLResponse else {
      continuation?.finish(throwing: URLError(.badServerResponse))
      return
    }
    continuation?.yield(
      .completed(RawResponse(status: http.statusCode, headers: URLSessionTransport.headers(of: http), body: body)))
    continuation?.finish()
  }
}
