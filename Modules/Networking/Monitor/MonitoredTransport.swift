import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A transport that tells an ``InferredNetworkMonitor`` how every request went, so that the monitor follows
/// connectivity without the client's help.
///
/// ```swift
/// import Foundation
///
/// let baseURL = URL(string: "https://api.example.com")!
/// let monitor = InferredNetworkMonitor(probe: InferredNetworkMonitor.probe(baseURL, over: URLSessionTransport()))
/// let client = HTTPClient(transport: MonitoredTransport(URLSessionTransport(), reportingTo: monitor))
/// ```
///
/// Every response is reported with ``InferredNetworkMonitor/recordResponse()``, every failure with
/// ``InferredNetworkMonitor/recordFailure(_:)``, except when the calling task was cancelled.
public struct MonitoredTransport: HTTPTransport {
  /// The transport that sends the requests.
  public let base: any HTTPTransport
  /// The monitor told about each outcome.
  public let monitor: InferredNetworkMonitor

  /// A transport that sends through `base` and reports each outcome to `monitor`.
  public init(_ base: any HTTPTransport, reportingTo monitor: InferredNetworkMonitor) {
    self.base = base
    self.monitor = monitor
  }

  /// Sends `request` through ``base``, reports the outcome, and returns or rethrows it unchanged.
  public func send(_ request: URLRequest) async throws -> RawResponse {
    let response: RawResponse
    do {
      response = try await base.send(request)
    } catch {
      // A transfer cut short by cancellation may fail with any code; it says nothing about the network.
      if !Task.isCancelled { monitor.recordFailure(error) }
      throw error
    }
    monitor.recordResponse()
    return response
  }

  /// The base's file transfers, reporting each outcome to ``monitor`` too; `nil` when the base has none.
  public var fileTransfers: (any FileTransferTransport)? {
    guard let files = base.fileTransfers else { return nil }
    return MonitoredFileTransfers(base: files, monitor: monitor)
  }
}

/// A ``FileTransferTransport`` that reports how each transfer went to an ``InferredNetworkMonitor``, as
/// ``MonitoredTransport`` does for requests.
struct MonitoredFileTransfers: FileTransferTransport {
  let base: any FileTransferTransport
  let monitor: InferredNetworkMonitor

  func send(_ request: URLRequest) async throws -> RawResponse {
    try await MonitoredTransport(base, reportingTo: monitor).send(request)
  }

  func download(_ request: URLRequest, to destination: URL) -> TransferEvents {
    reported(base.download(request, to: destination))
  }

  func upload(_ request: URLRequest, fromFile source: URL) -> TransferEvents {
    reported(base.upload(request, fromFile: source))
  }

  /// `events` as they come, the response or the failure reported once the transfer ends; cancelling the reader
  /// cancels the transfer.
  private func reported(_ events: TransferEvents) -> TransferEvents {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: TransferEvent.self)
    let monitor = monitor
    let forwarding = Task {
      do {
        for try await event in events {
          if case .completed = event { monitor.recordResponse() }
          continuation.yield(event)
        }
        continuation.finish()
      } catch {
        if !Task.isCancelled { monitor.recordFailure(error) }
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in forwarding.cancel() }
    return TransferEvents(stream)
  }
}
