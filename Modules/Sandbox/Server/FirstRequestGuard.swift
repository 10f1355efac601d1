import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// The Sandbox's HTTP/1.1 connections with a WebSocket upgrade, as Hummingbird makes them, plus a ``FirstRequestGuard``
/// that answers a first request head the parser refuses: Hummingbird adds its own error handling only after the first
/// head.
struct GuardedHTTPChannel: ServerChildChannel {
  let base: HTTP1WebSocketUpgradeChannel

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1WebSocketUpgradeChannel.Value> {
    base.setup(channel: channel, logger: logger).flatMapThrowing { value in
      let decoder = try channel.pipeline.syncOperations.context(
        handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
      try channel.pipeline.syncOperations.addHandler(
        FirstRequestGuard(), position: .after(decoder.handler))
      return value
    }
  }

  func handle(value: HTTP1WebSocketUpgradeChannel.Value, logger: Logger) async {
    await base.handle(value: value, logger: logger)
  }
}

/// Sits right after the HTTP decoder until the first request head passes, then leaves. Before that, nobody else
/// answers for the connection: a head the parser refuses (a control character in a header value, a malformed request
/// line) is answered 400 and closed at once. Without it, such a connection stayed open and silent forever.
///
/// A connection that never sends a whole head is not timed out here (the Sandbox guide's limits say why). Closing a
/// connection before Hummingbird handled a request makes ThreadSanitizer report a race inside Hummingbird's
/// `handleHTTP` that the Swift runtime's uninstrumented atomics explain; Scripts/tsan-suppressions.txt says more.
final class FirstRequestGuard: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias InboundOut = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  private var answered = false

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    context.fireChannelRead(data)
    if case .head = unwrapInboundIn(data) {
      context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    guard error is HTTPParserError, !answered else {
      context.fireErrorCaught(error)
      return
    }
    answered = true
    var headers = HTTPHeaders()
    headers.add(name: "Connection", value: "close")
    headers.add(name: "Content-Length", value: "0")
    context.write(
      wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    context.close(promise: nil)
  }
}
