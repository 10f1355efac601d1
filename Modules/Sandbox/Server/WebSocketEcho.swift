import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket

/// The WebSocket upgrades: `GET /socket.io/` goes to the Socket.IO server (``SocketIOHub``, SandboxAPI §6), and
/// `GET /ws/echo` (SandboxAPI §6a): every text and binary message comes back as it was sent,
/// up to 16 MiB, which is what WebSocket clients are tested against. Three text messages are commands: `close CODE
/// REASON` makes the server close with that code and reason, `vanish` makes it drop the connection without a close
/// frame, as a server that dies does, and `burst COUNT SIZE` makes it send COUNT text messages of SIZE bytes (at most
/// 100,000 of at most 64 KiB), as a busy channel pushes them.
enum WebSocketEcho {
  /// The path that upgrades.
  static let path = "/ws/echo"
  /// The largest message echoed, however many frames it came in.
  static let maxMessageSize = 16 << 20

  /// The upgrade decision: `path` only, and only with the access key when the Sandbox has one (otherwise the request
  /// goes on to the HTTP responder, which refuses it as it refuses any request without the key).
  static func shouldUpgrade(
    accessKey: String?, realtime: SocketIOHub
  )
    -> @Sendable (HTTPRequest, any Channel, Logger) async throws -> ShouldUpgradeResult<
      WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>
    >
  {
    { request, channel, _ in
      let requested = request.path?.split(separator: "?").first.map(String.init)
      guard requested == path || requested == SocketIOHub.path else { return .dontUpgrade }
      if let accessKey, !Secrets.matches(request.headerFields[SandboxResponder.key], accessKey) { return .dontUpgrade }
      if requested == SocketIOHub.path {
        // Past the address's bound, declined: Hummingbird answers 400 and closes.
        guard realtime.reserve(channel) else { return .dontUpgrade }
        return .upgrade([:], realtime.handler(channel: channel))
      }
      return .upgrade([:]) { inbound, outbound, _ in
        for try await message in inbound.messages(maxSize: maxMessageSize) {
          switch message {
          case .text(let text) where text == "vanish":
            try await channel.close()
            return
          case .text(let text) where text.hasPrefix("burst "):
            let words = text.split(separator: " ").dropFirst().compactMap { Int($0) }
            let count = min(max(words.first ?? 0, 0), 100_000)
            let size = min(max(words.dropFirst().first ?? 0, 0), 64 * 1_024)
            let payload = String(repeating: "m", count: size)
            for _ in 0..<count { try await outbound.write(.text(payload)) }
          case .text(let text) where text.hasPrefix("close "):
            let words = text.split(separator: " ", maxSplits: 2).map(String.init)
            let code = words.count > 1 ? Int(words[1]) ?? 1000 : 1000
            try await outbound.close(WebSocketErrorCode(codeNumber: code), reason: words.count > 2 ? words[2] : nil)
            return
          case .text(let text):
            try await outbound.write(.text(text))
          case .binary(let buffer):
            try await outbound.write(.binary(buffer))
          }
        }
      }
    }
  }
}
