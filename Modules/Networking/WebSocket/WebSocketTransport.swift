import Foundation

/// Opens WebSocket connections: what the realtime client runs on (REQUIREMENTS R1).
///
/// Two implementations: `NIOWebSocketTransport` (the NIOTransports product, for Linux and servers) and
/// ``URLSessionWebSocketTransport`` (Apple platforms). Ping and pong at the WebSocket level are handled below this
/// protocol; its user sees whole messages, reassembled from their frames.
///
/// ```swift
/// import Foundation
///
/// func echo(over transport: any WebSocketTransport, at url: URL) async throws -> WebSocketMessage? {
///   let connection = try await transport.connect(to: url, headers: ["Authorization": "Bearer token"])
///   try await connection.send(.text("hello"))
///   var inbound = connection.messages.makeAsyncIterator()
///   let reply = try await inbound.next()
///   await connection.close(.normalClosure, reason: "done")
///   return reply
/// }
/// ```
public protocol WebSocketTransport: Sendable {
  /// Opens a connection to `url` (`ws` or `wss`) with `headers` on the upgrade request, and returns once the server
  /// has accepted it.
  ///
  /// - Throws: ``WebSocketError``: `WebSocketError.Kind.invalidURL` before anything is sent,
  ///   `WebSocketError.Kind.connectionFailed` (with the `URLError`) when the server cannot be reached,
  ///   `WebSocketError.Kind.upgradeRejected` when it answers but does not accept the upgrade,
  ///   `WebSocketError.Kind.unsupported` where the platform has no WebSocket; `CancellationError` when the calling
  ///   task is cancelled.
  func connect(to url: URL, headers: [String: String]) async throws -> any WebSocketConnection
}

/// One open WebSocket connection.
public protocol WebSocketConnection: Sendable {
  /// The messages the server sends, in order, for one reader. The sequence finishes after a close handshake (either
  /// side's) and throws ``WebSocketError`` when the connection fails without one (`WebSocketError.Kind.connectionLost`)
  /// or the server breaks the protocol or the size limit.
  var messages: AsyncThrowingStream<WebSocketMessage, any Error> { get }

  /// Sends `message`, whole: the connection fragments a large one into frames as it needs to.
  ///
  /// - Throws: ``WebSocketError`` of kind `WebSocketError.Kind.closed` once the connection is closing or closed,
  ///   `WebSocketError.Kind.messageTooLarge` for a message over the connection's limit (nothing is sent).
  func send(_ message: WebSocketMessage) async throws

  /// Starts the close handshake with `code` and `reason` (at most 123 bytes of UTF-8) and returns once the connection
  /// is closed, or the close timeout has passed and it was cut. Closing a closed connection does nothing.
  func close(_ code: WebSocketCloseCode, reason: String) async

  /// Waits until the connection is closed, by either side or by a failure, and returns how.
  func closure() async -> WebSocketClosure

  /// The executor on which the connection reads, if it has one to offer; `nil` by default.
  ///
  /// A reader of ``messages`` that runs with this preference (`withTaskExecutorPreference`) takes each message on the
  /// thread that read it from the socket, instead of waking another thread for it: the realtime client reads so.
  /// Only what does not block belongs there.
  var taskExecutor: (any TaskExecutor)? { get }
}

extension WebSocketConnection {
  /// No executor of its own: the connection's messages are read wherever their reader runs.
  public var taskExecutor: (any TaskExecutor)? { nil }
}

/// A WebSocket message: text or binary.
public enum WebSocketMessage: Sendable, Hashable, CustomStringConvertible {
  /// A text message.
  case text(String)
  /// A binary message.
  case binary(Data)

  /// Its size in bytes: the UTF-8 of a text message.
  public var byteCount: Int {
    switch self {
    case .text(let text): text.utf8.count
    case .binary(let data): data.count
    }
  }

  /// `text(12 bytes)` or `binary(1048576 bytes)`: the size, never the content, which may be private.
  public var description: String {
    switch self {
    case .text: "text(\(byteCount) bytes)"
    case .binary: "binary(\(byteCount) bytes)"
    }
  }
}

/// A close code (RFC 6455 §7.4): the registered ones by name, an application's own (4000–4999) by number.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The code on the wire.
  public let rawValue: UInt16

  /// The code `rawValue`.
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  /// 1000: the purpose of the connection is fulfilled.
  public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
  /// 1001: the endpoint is going away (a server shutting down, an app going to the background).
  public static let goingAway = WebSocketCloseCode(rawValue: 1001)
  /// 1002: the peer broke the protocol.
  public static let protocolError = WebSocketCloseCode(rawValue: 1002)
  /// 1003: a kind of data the endpoint cannot accept.
  public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
  /// 1005: the close frame carried no code. Never sent; reported.
  public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
  /// 1006: the connection ended without a close frame (the peer vanished). Never sent; reported.
  public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
  /// 1007: a text message that is not UTF-8.
  public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
  /// 1008: a message that violates the endpoint's policy.
  public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
  /// 1009: a message too large to process.
  public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
  /// 1011: the server met an unexpected condition.
  public static let internalServerError = WebSocketCloseCode(rawValue: 1011)

  /// The number, for example `1000`.
  public var description: String { String(rawValue) }

  /// Whether an endpoint may send this code in a close frame: 1000–1003, 1007–1011 and 3000–4999.
  public var isSendable: Bool {
    switch rawValue {
    case 1000...1003, 1007...1011, 3000...4999: true
    default: false
    }
  }
}

/// How a connection ended.
public struct WebSocketClosure: Sendable, Hashable, CustomStringConvertible {
  /// The code of the close frame, ``WebSocketCloseCode/abnormalClosure`` when the connection ended without one.
  public var code: WebSocketCloseCode
  /// The close frame's reason; empty when there was none.
  public var reason: String
  /// Whether the server started the close (or the connection failed), rather than this side.
  public var byServer: Bool

  /// A closure with `code` and `reason`, started by the server when `byServer`.
  public init(code: WebSocketCloseCode, reason: String = "", byServer: Bool) {
    self.code = code
    self.reason = reason
    self.byServer = byServer
  }

  /// `1000 "done" (by the server)`.
  public var description: String {
    "\(code)\(reason.isEmpty ? "" : " \"\(reason)\"") (by \(byServer ? "the server" : "this side"))"
  }
}
