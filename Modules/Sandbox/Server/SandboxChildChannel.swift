import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// The Sandbox's connections: Hummingbird's HTTP/1.1 with the WebSocket upgrade, plus what that lacks before a
/// connection's first request.
///
/// Until the first request head decides whether a connection upgrades, its pipeline is the upgrade negotiation only:
/// Hummingbird adds the handler that closes an idle HTTP/1.1 connection when the server shuts down
/// (`HTTPConnectionStateHandler`) once it knows the connection does not upgrade. So a connection a client opened and
/// never used (a pooled spare) was neither closed nor counted as idle by ``RunningSandbox/stop()``: the stop waited
/// until the client closed it, 60 s for one HTTP client's pool. ``UnusedConnectionCloser`` closes such a connection
/// when the server shuts down, and leaves the pipeline at its first byte.
struct SandboxChildChannel: ServerChildChannel {
  /// The connection's handling once it is set up: Hummingbird's own.
  typealias Value = HTTP1WebSocketUpgradeChannel.Value

  let upgradeChannel: HTTP1WebSocketUpgradeChannel

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    channel.eventLoop.makeCompletedFuture {
      try channel.pipeline.syncOperations.addHandler(UnusedConnectionCloser(), position: .first)
    }.flatMap {
      upgradeChannel.setup(channel: channel, logger: logger)
    }
  }

  func handle(value: Value, logger: Logger) async {
    await upgradeChannel.handle(value: value, logger: logger)
  }
}

/// Closes its connection when the server asks connections to wind down (`ChannelShouldQuiesceEvent`) before any byte
/// arrived; removes itself at the first byte, after which Hummingbird's own handlers take the event.
final class UnusedConnectionCloser: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    context.fireChannelRead(data)
    context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if event is ChannelShouldQuiesceEvent {
      context.close(promise: nil)
    } else {
      context.fireUserInboundEventTriggered(event)
    }
  }
}

@available(*, unavailable)
extension UnusedConnectionCloser: Sendable {}
