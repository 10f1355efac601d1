import NIOTransports

/// The HTTP transport every command sends through: AsyncHTTPClient on SwiftNIO, on every platform. On Linux,
/// URLSession is FoundationNetworking over libcurl, about a third as fast on loopback and unsafe to cancel
/// mid-upload (Documentation/Decisions/0011). One per process, so that every service shares its connection pool;
/// the process's end closes its connections.
enum CommandTransport {
  /// The process's transport.
  static let http = NIOHTTPTransport()
  /// The process's WebSocket: swift-websocket on SwiftNIO (URLSession has none on Linux).
  static let webSocket = NIOWebSocketTransport()
}
