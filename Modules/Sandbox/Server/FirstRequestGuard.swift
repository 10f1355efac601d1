import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// The Sandbox's HTTP/1.1 connections with a WebSocket upgrade, as Hummingbird makes them, plus a ``FirstRequestGuard``
/// that looks after a connection until its first request head is read: Hummingbird adds its own idle timer and error
/// handling only then.
struct GuardedHTTPChannel: ServerChildChannel {
  let base: HTTP1WebSocketUpgradeChannel
  /// How long a connection may take to send a whole first request head.
  let idleTimeout: TimeAmount

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1WebSocketUpgradeChannel.Value> {
    base.setup(channel: channel, logger: logger).flatMapThrowing { value in
      let decoder = try channel.pipeline.syncOperations.context(
        handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
      try channel.pipeline.syncOperations.addHandler(
        FirstRequestGuard(idleTimeout: idleTimeout), position: .after(decoder.handler))
      return value
    }
  }

  func handle(value: HTTP1WebSocketUpgradeChannel.Value, logger: Logger) async {
    await base.handle(value: value, logger: logger)
  }
}

/// Sits right after the HTTP decoder until the first request head passes, then leaves. Before that, nobody else
/// answers for the connection: a head the parser refuses (a control character in a header value, a malformed request
/// line) is answered 400 and closed at once, and a connection that has not sent a whole head within the idle
/// timeout, whatever it sent, is closed. Without it, such a connection stayed open and silent forever.
///
/// Closing a connection before Hummingbird handled a request makes ThreadSanitizer report a race inside Hummingbird's
/// `handleHTTP` that the Swift runtime's uninstrumented atomics explain; Scripts/tsan-known-reports.txt says more.
final class FirstRequestGuard: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias InboundOut = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  private let idleTimeout: TimeAmount
  private var timer: Scheduled<Void>?
  private var answered = false

  init(idleTimeout: TimeAmount) {
    self.idleTimeout = idleTimeout
  }

  func handlerAdded(context: ChannelHandlerContext) {
    let channel = context.channel
    timer = context.eventLoop.scheduleTask(in: idleTimeout) { channel.close(promise: nil) }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    timer?.cancel()
    timer = nil
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    context.fireChannelRead(data)
    if case .head = unwrapInboundIn(data) {
      timer?.cancel()
      timer = nil
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
