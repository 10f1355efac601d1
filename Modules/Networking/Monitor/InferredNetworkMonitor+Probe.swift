import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension InferredNetworkMonitor {
  /// A probe that sends a request to `url` over `transport`: the server is reachable when any response comes back,
  /// whatever its status (a 405 to a `HEAD` still proves it is there).
  ///
  /// ```swift
  /// import Foundation
  ///
  /// let baseURL = URL(string: "https://api.example.com")!
  /// let monitor = InferredNetworkMonitor(probe: InferredNetworkMonitor.probe(baseURL, over: URLSessionTransport()))
  /// ```
  ///
  /// Pass a bare transport, not a ``MonitoredTransport`` reporting to the same monitor: the monitor would keep itself
  /// alive through it.
  ///
  /// - Parameters:
  ///   - url: What to ask, typically the API's base URL.
  ///   - method: The request's method; `HEAD` by default, so that no body is transferred.
  ///   - timeout: How long a probe may wait for an answer before it counts as a failure; 10 s by default.
  ///   - transport: How the probe travels.
  /// - Returns: The probe, for ``init(probe:unreachableErrors:initialProbeDelay:maxProbeDelay:clock:logger:)``.
  public static func probe(
    _ url: URL, method: HTTPMethod = .head, timeout: Duration = .seconds(10), over transport: any HTTPTransport
  ) -> Probe {
    let (seconds, attoseconds) = timeout.components
    let timeoutInterval = TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    return {
      var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeoutInterval)
      request.httpMethod = method.rawValue
      do {
        _ = try await transport.send(request)
        return true
      } catch {
        return false
      }
    }
  }
}
