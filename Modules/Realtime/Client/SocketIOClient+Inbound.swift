import Foundation
import KeelConcurrency
import Logging
import Networking

// What the server sends: Engine.IO packets first, Socket.IO packets within them, binary attachments after them.
extension SocketIOClient {
  // MARK: - Inbound

  /// Handles one inbound message; returns how the connection ends, when it does.
  func handle(_ message: WebSocketMessage, on live: LiveConnection) async throws -> Outcome? {
    switch try EnginePacket.decode(message) {
    case .ping(let data):
      live.lastPing = now()
      try await write([EnginePacket.pong(data).message], on: live)
    case .pong, .noop, .upgrade:
      break
    case .open:
      throw SocketIOError(.invalidPacket, "The server sent a second Engine.IO handshake.")
    case .close:
      live.endReason = .transportClose
      return outcome(of: live)
    case .message(let text):
      guard live.assembling == nil else {
        throw SocketIOError(.invalidPacket, "A packet came while a binary packet still awaited attachments.")
      }
      let (packet, attachments) = try SocketPacket.decode(text)
      guard attachments > 0 else { return try deliver(packet, on: live) }
      live.assembling = PartialPacket(packet: packet, expected: attachments)
    case .binary(let data):
      guard var partial = live.assembling else {
        throw SocketIOError(.invalidPacket, "An attachment came without a binary packet.")
      }
      partial.attachments.append(data)
      partial.bytes += data.count
      guard partial.bytes <= Self.maxBinaryPacketBytes else {
        throw SocketIOError(.invalidPacket, "A binary packet's attachments exceed 64 MiB.")
      }
      guard partial.attachments.count == partial.expected else {
        live.assembling = partial
        return nil
      }
      live.assembling = nil
      return try deliver(partial.packet.resolving(partial.attachments), on: live)
    }
    return nil
  }

  /// Acts on one whole Socket.IO packet.
  func deliver(_ packet: SocketPacket, on live: LiveConnection) throws -> Outcome? {
    guard packet.namespace == configuration.namespace, self.live === live else { return nil }
    switch packet.kind {
    case .connect:
      guard let sid = packet.data?["sid"]?.string else {
        throw SocketIOError(.invalidPacket, "The server's CONNECT has no socket id.")
      }
      // The connect timeout (or the app's disconnect) can come between the reading of the server's CONNECT and its
      // handling here: the attempt is cancelled by then, and its next read would end it. It ends now, as what it is,
      // not as a connection that came up and closed at once.
      guard !live.timedOut, live.endReason == nil else { return outcome(of: live) }
      live.sid = sid
      live.timer?.cancel()
      logger.info("Connected to \(configuration.namespace).")
      fanOut.publish(.state(.connected(sid: sid)))
    case .connectError:
      return .refused(packet.data?["message"]?.string ?? packet.data?.string ?? "no reason given")
    case .disconnect:
      live.endReason = .ioServerDisconnect
      return .ended(.ioServerDisconnect)
    case .event, .binaryEvent:
      guard live.sid != nil, let (name, args) = packet.event else { return nil }
      fanOut.publish(
        .event(
          SocketEvent(
            name: name, args: args, namespace: packet.namespace, ackID: packet.id, generation: live.generation)))
    case .ack, .binaryAck:
      guard let id = packet.id, let args = packet.ackArguments, let pending = pendingAcks[id],
        pending.generation == live.generation
      else { return nil }
      pendingAcks[id] = nil
      pending.waiter.fulfill(.success(args))
    }
    return nil
  }
}
