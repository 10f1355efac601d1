/// An event the server emitted.
public struct SocketEvent: Sendable, Hashable {
  /// The event's name.
  public let name: String
  /// Its arguments, binaries in place.
  public let args: [SocketValue]
  /// The namespace it came on.
  public let namespace: String
  /// The id the server awaits an acknowledgement under, when it asked for one: answer with
  /// ``SocketIOClient/acknowledge(_:with:)``.
  public let ackID: Int?
  /// The connection it came on: an acknowledgement goes back on that connection only.
  let generation: Int
}

/// What happened on a ``SocketIOClient``, in the order it happened: for a log or a screen that shows both the
/// connection and the events.
public enum SocketActivity: Sendable, Hashable {
  /// The connection's state changed.
  case state(SocketConnectionState)
  /// The server emitted an event.
  case event(SocketEvent)
}
