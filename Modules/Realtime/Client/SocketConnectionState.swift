/// Where a ``SocketIOClient``'s connection stands.
public enum SocketConnectionState: Sendable, Hashable, CustomStringConvertible {
  /// Not connected, and not trying: never connected, or ended for `reason` (`nil` before the first connection).
  case disconnected(SocketDisconnectReason?)
  /// Opening a connection and joining the namespace.
  case connecting
  /// Joined the namespace; `sid` is the socket's id on the server.
  case connected(sid: String)
  /// Waiting `delay` before reconnection attempt `attempt` (1, 2, …).
  case reconnecting(attempt: Int, delay: Duration)
  /// The server refused to let the client join (CONNECT_ERROR, from its middleware): `message` says why. No
  /// reconnection until the app calls ``SocketIOClient/connect()`` again.
  case refused(message: String)
  /// Closed for the app's lifecycle (background, inactive, screen gone) until ``SocketIOClient/resume()``.
  case suspended

  /// Whether the client is connected.
  public var isConnected: Bool {
    if case .connected = self { true } else { false }
  }

  /// `connected (sid abc)`, `reconnecting (attempt 2 in 1.4 s)`, `disconnected (ping timeout)`.
  public var description: String {
    switch self {
    case .disconnected(let reason): "disconnected" + (reason.map { " (\($0))" } ?? "")
    case .connecting: "connecting"
    case .connected(let sid): "connected (sid \(sid))"
    case .reconnecting(let attempt, let delay): "reconnecting (attempt \(attempt) in \(delay))"
    case .refused(let message): "refused (\(message))"
    case .suspended: "suspended"
    }
  }
}
