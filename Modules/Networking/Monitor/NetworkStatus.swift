/// Whether the backend can be reached, as a ``NetworkMonitor`` last saw it.
public enum NetworkStatus: Sendable, Hashable {
  /// Requests can reach the server.
  case online
  /// Requests cannot reach the server; sending them now would only fail.
  case offline
}
