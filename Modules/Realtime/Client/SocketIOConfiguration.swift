import Foundation

/// Where a ``SocketIOClient`` connects and how it behaves; every setting but the URL has a default.
///
/// ```swift
/// import Foundation
///
/// var configuration = SocketIOConfiguration(url: URL(string: "https://chat.example.com")!, namespace: "/chat")
/// configuration.auth = { ["token": "current-access-token"] }   // asked anew on every (re)connect
/// configuration.ackTimeout = .seconds(5)
/// ```
public struct SocketIOConfiguration: Sendable {
  /// The server: `http`, `https`, `ws` or `wss`, with a host. A URL without a path connects to `/socket.io/`; its
  /// query, if any, is sent on the handshake.
  public var url: URL
  /// The namespace to join, `/` by default.
  public var namespace: String
  /// Headers on the WebSocket upgrade request (a cookie, a user agent). Never logged. No `Origin` is sent unless
  /// this holds one: a server that checks origins (python-socketio does by default) admits a client that sends none,
  /// and refuses one that does not name the server exactly (`http(s)://host:port`).
  public var headers: [String: String]
  /// The payload of every CONNECT, asked for anew on each (re)connect so that a refreshed token is the one sent
  /// (REQUIREMENTS R4); `nil` for none. Never logged. A provider that throws refuses the connection: the client
  /// stays ``SocketConnectionState/refused(message:)`` until connected again.
  public var auth: @Sendable () async throws -> SocketValue?
  /// When to try again after a failed or lost connection.
  public var reconnection: ReconnectionPolicy
  /// How long one connection attempt may take, from opening the WebSocket to joining the namespace. Default 20 s,
  /// so that an attempt on a dead network does not hang.
  public var connectTimeout: Duration
  /// How long ``SocketIOClient/emitWithAck(_:_:timeout:)`` waits for an acknowledgement unless told otherwise.
  /// Default 30 s.
  public var ackTimeout: Duration
  /// The most acknowledgements awaited at once; more fail at once with
  /// `SocketIOError.Kind.tooManyPendingAcks`. Default 10,000.
  public var maxPendingAcks: Int

  /// A configuration for the server at `url`, joining `namespace`; see each property for its default.
  public init(
    url: URL, namespace: String = "/", headers: [String: String] = [:],
    auth: @escaping @Sendable () async throws -> SocketValue? = { nil },
    reconnection: ReconnectionPolicy = ReconnectionPolicy(), connectTimeout: Duration = .seconds(20),
    ackTimeout: Duration = .seconds(30), maxPendingAcks: Int = 10_000
  ) {
    self.url = url
    self.namespace = namespace
    self.headers = headers
    self.auth = auth
    self.reconnection = reconnection
    self.connectTimeout = connectTimeout
    self.ackTimeout = ackTimeout
    self.maxPendingAcks = maxPendingAcks
  }

  /// The Engine.IO WebSocket URL: `ws` or `wss`, the path (`/socket.io/` when the URL has none), and the URL's query
  /// with `EIO=4&transport=websocket`.
  ///
  /// - Throws: `SocketIOError.Kind.invalidConfiguration` for a URL of another scheme or without a host, or a
  ///   namespace that does not start with `/`.
  func engineURL() throws(SocketIOError) -> URL {
    guard namespace.hasPrefix("/"), !namespace.contains(",") else {
      throw SocketIOError(
        .invalidConfiguration, "The namespace \(namespace.debugDescription) must start with / and have no comma.")
    }
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
      let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty
    else {
      throw SocketIOError(.invalidConfiguration, "A Socket.IO URL needs a scheme and a host, as in http://host:port.")
    }
    switch scheme {
    case "http", "ws": components.scheme = "ws"
    case "https", "wss": components.scheme = "wss"
    default:
      throw SocketIOError(
        .invalidConfiguration, "A Socket.IO URL is http, https, ws or wss, not \(scheme.debugDescription).")
    }
    if components.path.isEmpty || components.path == "/" { components.path = "/socket.io/" }
    components.queryItems =
      (components.queryItems ?? []).filter { $0.name != "EIO" && $0.name != "transport" }
      + [URLQueryItem(name: "EIO", value: "4"), URLQueryItem(name: "transport", value: "websocket")]
    guard let engineURL = components.url else {
      throw SocketIOError(.invalidConfiguration, "No WebSocket URL can be formed from the Socket.IO URL.")
    }
    return engineURL
  }
}
