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
}
