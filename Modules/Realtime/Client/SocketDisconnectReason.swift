/// Why a connection ended, in the words of the reference client (socket.io-client), so that logs and the `keel
/// socketio` output read the same as theirs.
public struct SocketDisconnectReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The reason's text, for example `ping timeout`.
  public let rawValue: String

  /// The reason `rawValue`.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// The server disconnected the socket on purpose. No reconnection.
  public static let ioServerDisconnect = SocketDisconnectReason(rawValue: "io server disconnect")
  /// The app disconnected (or suspended) the client. No reconnection.
  public static let ioClientDisconnect = SocketDisconnectReason(rawValue: "io client disconnect")
  /// No ping from the server within `pingInterval + pingTimeout`: the connection is dead. Reconnects.
  public static let pingTimeout = SocketDisconnectReason(rawValue: "ping timeout")
  /// The connection was closed (the server went away, or closed the Engine.IO session). Reconnects.
  public static let transportClose = SocketDisconnectReason(rawValue: "transport close")
  /// The connection failed (reset, a broken frame, a packet that cannot be read). Reconnects.
  public static let transportError = SocketDisconnectReason(rawValue: "transport error")

  /// Whether the client reconnects after a disconnection for this reason: not after a deliberate one.
  public var reconnects: Bool { self != .ioServerDisconnect && self != .ioClientDisconnect }

  /// The reason's text.
  public var description: String { rawValue }
}
