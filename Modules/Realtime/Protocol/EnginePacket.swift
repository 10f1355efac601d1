import Foundation
import Networking

/// An Engine.IO v4 packet as it travels over WebSocket: a text message whose first character is the packet type, or
/// a binary message, which is always a message packet's data.
package enum EnginePacket: Sendable, Hashable {
  /// The server's handshake, its first packet.
  case open(EngineHandshake)
  /// Either side closes the session.
  case close
  /// The server's heartbeat; the client answers with a pong carrying the same data.
  case ping(String)
  /// The answer to a ping.
  case pong(String)
  /// A message: a Socket.IO packet's text.
  case message(String)
  /// A message of binary data: a Socket.IO packet's attachment.
  case binary(Data)
  /// A transport upgrade (not used over WebSocket alone).
  case upgrade
  /// Nothing (used by polling transports).
  case noop

  /// The packet `message` carries.
  ///
  /// - Throws: `SocketIOError.Kind.invalidPacket` for an empty text, an unknown type or a handshake that cannot be
  ///   read.
  package static func decode(_ message: WebSocketMessage) throws(SocketIOError) -> EnginePacket {
    switch message {
    case .binary(let data):
      return .binary(data)
    case .text(let text):
      guard let type = text.utf8.first else { throw SocketIOError(.invalidPacket, "An empty Engine.IO packet.") }
      let data = String(text.dropFirst())
      switch type {
      case UInt8(ascii: "0"): return .open(try EngineHandshake(json: data))
      case UInt8(ascii: "1"): return .close
      case UInt8(ascii: "2"): return .ping(data)
      case UInt8(ascii: "3"): return .pong(data)
      case UInt8(ascii: "4"): return .message(data)
      case UInt8(ascii: "5"): return .upgrade
      case UInt8(ascii: "6"): return .noop
      default:
        throw SocketIOError(.invalidPacket, "An Engine.IO packet of unknown type \(Unicode.Scalar(type)).")
      }
    }
  }

  /// The WebSocket message that carries this packet.
  package var message: WebSocketMessage {
    switch self {
    case .open(let handshake): .text("0" + handshake.json)
    case .close: .text("1")
    case .ping(let data): .text("2" + data)
    case .pong(let data): .text("3" + data)
    case .message(let text): .text("4" + text)
    case .binary(let data): .binary(data)
    case .upgrade: .text("5")
    case .noop: .text("6")
    }
  }
}

/// The Engine.IO handshake: the session id and the heartbeat the server keeps.
package struct EngineHandshake: Sendable, Hashable, Codable {
  /// The Engine.IO session id.
  package var sid: String
  /// Transports the server could upgrade to (none over WebSocket).
  package var upgrades: [String]
  /// Milliseconds between the server's pings.
  package var pingInterval: Int
  /// Milliseconds the server waits for a pong, and the client, past `pingInterval`, for the next ping.
  package var pingTimeout: Int
  /// The largest message, in bytes, the server accepts.
  package var maxPayload: Int

  /// A handshake with these values.
  package init(sid: String, pingInterval: Int, pingTimeout: Int, maxPayload: Int) {
    self.sid = sid
    self.upgrades = []
    self.pingInterval = pingInterval
    self.pingTimeout = pingTimeout
    self.maxPayload = maxPayload
  }

  /// The handshake in `json`, with a heartbeat of at most a day and a positive `maxPayload`.
  init(json: String) throws(SocketIOError) {
    let decoded: EngineHandshake
    do {
      decoded = try JSONDecoder().decode(EngineHandshake.self, from: Data(json.utf8))
    } catch {
      throw SocketIOError(.invalidPacket, "The Engine.IO handshake cannot be read: \(error).")
    }
    let day = 86_400_000
    guard (1...day).contains(decoded.pingInterval), (1...day).contains(decoded.pingTimeout), decoded.maxPayload > 0
    else {
      throw SocketIOError(
        .invalidPacket,
        "The Engine.IO handshake has a heartbeat of \(decoded.pingInterval) + \(decoded.pingTimeout) ms and a "
          + "maxPayload of \(decoded.maxPayload): each must be positive, the heartbeat at most a day.")
    }
    self = decoded
  }

  /// The handshake as the server sends it.
  package var json: String {
    let data = (try? JSONEncoder().encode(self)) ?? Data("{}".utf8)
    return String(decoding: data, as: UTF8.self)
  }

  /// How long the client waits for the next ping before it calls the connection dead: `pingInterval + pingTimeout`.
  package var heartbeatWindow: Duration { .milliseconds(pingInterval + pingTimeout) }
}
