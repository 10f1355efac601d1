import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Networking
import WSClient

/// A `WebSocketTransport` on SwiftNIO and swift-websocket's frame handling: the WebSocket for Linux and servers,
/// where URLSession has none (REQUIREMENTS R1).
///
/// ```swift
/// import Foundation
/// import Networking
///
/// let transport = NIOWebSocketTransport()
/// let connection = try await transport.connect(to: URL(string: "ws://127.0.0.1:8080/echo")!, headers: [:])
/// try await connection.send(.text("hello"))
/// for try await message in connection.messages {
///   print(message)
///   break
/// }
/// await connection.close(.normalClosure, reason: "")
/// ```
///
/// Messages are reassembled from their frames up to ``NIOWebSocketConfiguration/maxMessageSize`` (16 MiB by default,
/// where swift-websocket's own default of one 16 KiB frame would refuse a chat payload), and a large outbound message is
/// sent in fragments that any server accepts. `wss` URLs use TLS with the system's trust roots. The connection
/// answers pings and sends its own, and closes as lost when the server stops answering them.
///
/// The upgrade request carries `Host`, the WebSocket headers and the caller's `headers`, and no `Origin` unless they
/// hold one: a program is not a browser page, and a server that checks origins (python-socketio does by default)
/// refuses one that does not name it exactly. To send one, give the server's own, `http(s)://host:port`.
public struct NIOWebSocketTransport: WebSocketTransport {
  /// Limits, timeouts and pings.
  public let configuration: NIOWebSocketConfiguration
  private let eventLoopGroup: any EventLoopGroup
  private let logger: Logger

  /// A transport on SwiftNIO's shared event loop threads, or on `eventLoopGroup`.
  ///
  /// - Parameters:
  ///   - configuration: Message size limit, fragment size, connect and close timeouts, ping interval.
  ///   - eventLoopGroup: The threads its connections run on, each connection on one of them;
  ///     `MultiThreadedEventLoopGroup.singleton` by default. A group of one's own must outlive the connections: a
  ///     connection's reading, and a reader that prefers its `WebSocketConnection.taskExecutor`, continue on it.
  ///   - logger: Where swift-websocket logs the connections' lives, at `debug` and `trace`; nothing by default.
  public init(
    configuration: NIOWebSocketConfiguration = .init(),
    eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    logger: Logger = Logger(label: "keel.websocket", factory: { _ in SwiftLogNoOpLogHandler() })
  ) {
    self.configuration = configuration
    self.eventLoopGroup = eventLoopGroup
    self.logger = logger
  }

  /// Opens a connection to `url` with `headers` on the upgrade request; see
  /// `WebSocketTransport/connect(to:headers:)`.
  public func connect(to url: URL, headers: [String: String]) async throws -> any WebSocketConnection {
    let scheme = try WebSocketError.webSocketScheme(of: url)
    var fields = HTTPHeaders()
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
      guard HTTPField.Name(name) != nil, HTTPField.isValidValue(value) else {
        throw WebSocketError(.invalidURL, "Cannot open a WebSocket with the header \"\(name)\": not a valid header.")
      }
      fields.add(name: name, value: value)
    }
    let connection = NIOWebSocketConnection(configuration: configuration, eventLoop: eventLoopGroup.any())
    try await connection.open(
      url: url, headers: fields, tls: scheme == "wss" || scheme == "https" ? .makeClientConfiguration() : nil,
      logger: logger)
    return connection
  }
}

/// What a ``NIOWebSocketTransport``'s connections allow and how long they wait.
public struct NIOWebSocketConfiguration: Sendable {
  /// The largest message either side may send, in bytes, however many frames it comes in. Default 16 MiB.
  public var maxMessageSize: Int
  /// The largest frame this side sends: a longer message goes out in fragments of this size. Default 16 KiB, which
  /// every server accepts.
  public var fragmentSize: Int
  /// How long the connection and its upgrade may take. Default 10 seconds.
  public var connectTimeout: Duration
  /// How long a close waits for the server's close frame before the connection is cut. Default 5 seconds.
  public var closeTimeout: Duration
  /// How often a ping is sent; a connection whose pong does not come back before the next ping is closed as lost.
  /// Default 30 seconds; `nil` sends none.
  public var pingInterval: Duration?

  /// A configuration; every parameter defaults to what suits a chat connection.
  public init(
    maxMessageSize: Int = 16 << 20,
    fragmentSize: Int = 16 << 10,
    connectTimeout: Duration = .seconds(10),
    closeTimeout: Duration = .seconds(5),
    pingInterval: Duration? = .seconds(30)
  ) {
    self.maxMessageSize = maxMessageSize
    self.fragmentSize = fragmentSize
    self.connectTimeout = connectTimeout
    self.closeTimeout = closeTimeout
    self.pingInterval = pingInterval
  }
}
