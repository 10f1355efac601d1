import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import KeelConcurrency
import Logging
import NIOCore
import NIOWebSocket
import Networking
import Realtime

extension SocketIOHub {
  /// Takes one of the places the address of `channel` has, for an upgrade about to be made; `false` when all
  /// ``connectionsPerAddress`` are held, and the upgrade is declined (Hummingbird answers a declined upgrade 400 and
  /// closes). Taken before the upgrade and given back when the connection closes, however it ends, so that upgrades
  /// made at once cannot all slip under the bound.
  func reserve(_ channel: any Channel) -> Bool {
    let address = channel.remoteAddress?.ipAddress ?? ""
    let reserved = state.withLock { state in
      guard state.held[address, default: 0] < connectionsPerAddress else { return false }
      state.held[address, default: 0] += 1
      return true
    }
    guard reserved else { return false }
    channel.closeFuture.whenComplete { _ in
      self.state.withLock { state in
        state.held[address, default: 1] -= 1
        if state.held[address] == 0 { state.held[address] = nil }
      }
    }
    return true
  }

  /// The upgrade handler for one WebSocket at ``path``.
  func handler(channel: any Channel) -> WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context> {
    { inbound, outbound, _ in
      let socket = self.state.withLock { state in
        state.nextID += 1
        let socket = SandboxSocket(id: state.nextID, outbound: outbound, channel: channel)
        state.sockets[socket.id] = socket
        return socket
      }
      defer { _ = self.state.withLock { $0.sockets.removeValue(forKey: socket.id) } }
      try await self.serve(socket, inbound: inbound)
    }
  }

  func serve(_ socket: SandboxSocket, inbound: WebSocketInboundStream) async throws {
    while silenced { try await Task.sleep(for: .milliseconds(50)) }
    let handshake = EngineHandshake(
      sid: UUID().uuidString, pingInterval: Self.milliseconds(pingInterval),
      pingTimeout: Self.milliseconds(pingTimeout), maxPayload: Self.maxPayload)
    try await socket.write([EnginePacket.open(handshake).message])
    let heartbeat = Task { await self.heartbeat(socket) }
    defer { heartbeat.cancel() }
    var partial: (packet: SocketPacket, expected: Int, attachments: [Data])?
    // The bytes of the packet being read, its attachments included: the whole is held to maxPayload, as one message
    // is. A client past it is disconnected, as Socket.IO's server does with maxHttpBufferSize.
    var held = 0
    for try await message in inbound.messages(maxSize: Self.maxPayload) {
      let size: Int
      switch message {
      case .text(let text): size = text.utf8.count
      case .binary(let buffer): size = buffer.readableBytes
      }
      held = partial == nil ? size : held + size
      guard held <= Self.maxPayload else { return }
      guard !silenced else { continue }
      let engine: EnginePacket
      switch message {
      case .text(let text): engine = try EnginePacket.decode(.text(text))
      case .binary(let buffer): engine = .binary(Data(buffer.readableBytesView))
      }
      switch engine {
      case .pong: socket.ponged()
      case .close: return
      case .message(let text):
        let (packet, attachments) = try SocketPacket.decode(text)
        if attachments > 0 {
          partial = (packet, attachments, [])
        } else {
          try await handle(packet, from: socket)
        }
      case .binary(let data):
        guard var waiting = partial else { return }
        waiting.attachments.append(data)
        if waiting.attachments.count == waiting.expected {
          partial = nil
          try await handle(waiting.packet.resolving(waiting.attachments), from: socket)
        } else {
          partial = waiting
        }
      case .open, .ping, .upgrade, .noop: break
      }
    }
  }

  /// Pings every `pingInterval` (not while silent); a ping unanswered for `pingTimeout` ends the connection, and so
  /// does the end of the session of a token it joined with (its refresh grant expired or revoked): its client
  /// connects again, is refused, and learns that the session is over. A socket outlives no session.
  func heartbeat(_ socket: SandboxSocket) async {
    while !Task.isCancelled {
      do { try await Task.sleep(for: pingInterval) } catch { return }
      guard !silenced else { continue }
      if !socket.joinedTokens.allSatisfy(sessionGoesOn) {
        socket.channel.close(promise: nil)
        return
      }
      let pinged = socket.pinging()
      try? await socket.write([EnginePacket.ping("").message])
      do { try await Task.sleep(for: pingTimeout) } catch { return }
      if !silenced, !socket.ponged(since: pinged) {
        socket.channel.close(promise: nil)
        return
      }
    }
  }

  func handle(_ packet: SocketPacket, from socket: SandboxSocket) async throws {
    let namespace = packet.namespace
    switch packet.kind {
    case .connect:
      if let reason = refusal(packet.data?["token"]?.string) {
        try await send(
          SocketPacket(.connectError, namespace: namespace, data: ["message": .string(reason)]), to: socket)
      } else {
        let token = packet.data?["token"]?.string
        let sid = socket.join(namespace, as: userID(token), token: token.map(Secrets.digest))
        try await send(SocketPacket(.connect, namespace: namespace, data: ["sid": .string(sid)]), to: socket)
      }
    case .disconnect:
      socket.leave(namespace)
    case .event, .binaryEvent:
      guard socket.isIn(namespace: namespace, room: nil), let (name, args) = packet.event else { return }
      var answer: [SocketValue]?
      switch name {
      case "echo":
        try await send(.event("echo", args, namespace: namespace), to: socket)
        answer = args
      case "join":
        if let room = args.first?.string { socket.enter(room, in: namespace) }
        answer = ["joined"]
      case "leave":
        if let room = args.first?.string { socket.exit(room, in: namespace) }
        answer = ["left"]
      case "to_room":
        if let room = args.first?.string {
          push(namespace: namespace, room: room, event: "room_message", args: Array(args.dropFirst()))
        }
        answer = ["sent"]
      case "typing" where namespace == "/":
        if let user = socket.user(in: namespace) { chatEvents.withLock { $0 }?(user, name, args) }
        answer = nil
      default:
        answer = nil
      }
      if let id = packet.id, let answer {
        try await send(SocketPacket(.ack, namespace: namespace, id: id, data: .array(answer)), to: socket)
      }
    case .ack, .binaryAck, .connectError:
      break
    }
  }

  func send(_ packet: SocketPacket, to socket: SandboxSocket) async throws {
    try await send(packet, copies: 1, to: socket, in: socket.reserve())
  }

  /// Sends `copies` of `packet` to `socket` back to back in `turn`, which it ends (a silenced hub sends nothing).
  func send(_ packet: SocketPacket, copies: Int, to socket: SandboxSocket, in turn: AsyncTurns.Turn) async throws {
    let messages: [Networking.WebSocketMessage]
    do {
      guard !silenced else {
        turn.end()
        return
      }
      let (text, attachments) = try packet.encoded()
      messages = [EnginePacket.message(text).message] + attachments.map { EnginePacket.binary($0).message }
    } catch {
      turn.end()
      throw error
    }
    try await socket.write(Array(repeating: messages, count: copies).flatMap { $0 }, in: turn)
  }

  static func milliseconds(_ duration: Duration) -> Int {
    Int(duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000)
  }
}
