import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import NIOWebSocket
import WSClient
// WSCore's frame handler (fragments, pings, the close handshake, UTF-8 checks) is public only as SPI; Keel runs it
// behind an upgrade of its own, since WSClient's always sends `Origin: <scheme>://<host>`.
@_spi(WSInternal) import WSCore

/// The upgrade of one ``NIOWebSocketTransport`` connection: a plain `GET` with `Host`, the WebSocket headers and the
/// caller's headers, nothing else, then swift-websocket's frame handling.
///
/// No `Origin` is sent unless the caller gives one. A browser must send one, and a server checks it against its own
/// origin to keep other sites' pages out (python-socketio and Flask-SocketIO do by default, and refuse
/// WSClient's `ws://host`, whose scheme and missing port never match); a program is not a page, and sends none.
struct WebSocketUpgradeChannel: ClientConnectionChannel {
  /// How the upgrade went.
  enum Upgrade: Sendable {
    case accepted(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
    case refused
  }

  /// What a connection's handler is given besides its streams.
  struct Context: WebSocketContext {
    let logger: Logger
  }

  typealias Value = EventLoopFuture<Upgrade>

  /// The host, as the `Host` header and TLS name it.
  let host: String
  /// The port, `nil` for the scheme's own, which `Host` then omits.
  let port: Int?
  /// The path and query to upgrade.
  let target: String
  /// The caller's headers, an `Origin` among them only if they gave one.
  let headers: HTTPHeaders
  /// The largest frame either side may send.
  let maxFrameSize: Int
  /// How often to ping, and how long a close waits for the server's.
  let autoPing: AutoPingSetup
  let closeTimeout: Duration
  let tls: NIOSSLContext?
  let handler: WebSocketDataHandler<Context>

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    channel.eventLoop.makeCompletedFuture { try upgrade(channel) }
  }

  private func upgrade(_ channel: any Channel) throws -> Value {
    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: maxFrameSize) { channel, _ in
      channel.eventLoop.makeCompletedFuture {
        .accepted(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
      }
    }
    var fields = HTTPHeaders()
    fields.add(name: "Host", value: port.map { "\(Self.bracketed(host)):\($0)" } ?? Self.bracketed(host))
    fields.add(contentsOf: headers)
    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: fields)
    var configuration = NIOUpgradableHTTPClientPipelineConfiguration(
      upgradeConfiguration: NIOTypedHTTPClientUpgradeConfiguration(
        upgradeRequestHead: head, upgraders: [upgrader],
        notUpgradingCompletionHandler: { channel in channel.eventLoop.makeCompletedFuture { .refused } }))
    configuration.leftOverBytesStrategy = .forwardBytes
    if let tls {
      // SNI names a host, never an address.
      let name = Self.isAddress(host) ? nil : host
      try channel.pipeline.syncOperations.addHandler(
        try NIOSSLClientHandler(context: tls, serverHostname: name), position: .first)
    }
    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: configuration)
  }

  func handle(value: Value, logger: Logger) async throws -> WebSocketCloseFrame? {
    switch try await value.get() {
    case .accepted(let channel):
      do {
        return try await WebSocketHandler.handle(
          type: .client,
          configuration: .init(
            extensions: [], autoPing: autoPing, closeTimeout: closeTimeout, validateUTF8: true,
            maxFrameSize: maxFrameSize),
          asyncChannel: channel, context: Context(logger: logger), handler: handler)
      } catch {
        throw Self.clientError(error)
      }
    case .refused:
      throw WebSocketClientError.webSocketUpgradeFailed
    }
  }

  /// The frame handler closes a broken connection with an error of its package's own (`close(code)`); this is WSClient's
  /// public error for it, as `WebSocketClient` throws.
  static func clientError(_ error: any Error) -> any Error {
    guard String(reflecting: type(of: error)).hasSuffix("WebSocketHandler.InternalError"),
      let code = Mirror(reflecting: error).children.first?.value as? WebSocketErrorCode
    else { return error }
    switch code {
    case .messageTooLarge: return WebSocketClientError.serverSentMessageTooLarge
    case .dataInconsistentWithMessage: return WebSocketClientError.serverSentDataInconsistentWithMessage
    default: return WebSocketClientError.serverProtocolError
    }
  }

  /// An IPv6 address in brackets, as `Host` writes it.
  private static func bracketed(_ host: String) -> String {
    host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
  }

  private static func isAddress(_ host: String) -> Bool {
    (try? SocketAddress(ipAddress: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: 0)) != nil
  }
}
