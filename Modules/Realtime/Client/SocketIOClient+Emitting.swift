import Foundation
import KeelConcurrency
import KeelErrors
import Logging
import Networking

// What the app sends: events, events awaiting an acknowledgement, and the answers to the server's own requests.
extension SocketIOClient {
  // MARK: - Emitting

  /// Emits `event` with `args` and returns once it is written to the connection. Delivery is confirmed only by an
  /// acknowledgement: see ``emitWithAck(_:_:timeout:)``.
  ///
  /// - Throws: ``SocketIOError``: `SocketIOError.Kind.notConnected` at once while not connected,
  ///   `SocketIOError.Kind.invalidArguments` for a reserved name or an argument JSON cannot carry,
  ///   `SocketIOError.Kind.payloadTooLarge` over the server's `maxPayload` (nothing is sent),
  ///   `SocketIOError.Kind.disconnected` when the connection fails while sending.
  public func emit(_ event: String, _ args: [SocketValue] = []) async throws {
    try Self.validate(event)
    let live = try connectedLive()
    try await send(.event(event, args, namespace: configuration.namespace), on: live)
  }

  /// Emits `event` with `args`, asks the server to acknowledge it, and returns the acknowledgement's arguments.
  ///
  /// - Parameters:
  ///   - event: The event's name: not empty, not reserved.
  ///   - args: Its arguments.
  ///   - timeout: How long to wait; ``SocketIOConfiguration/ackTimeout`` by default.
  /// - Throws: as ``emit(_:_:)``, and `SocketIOError.Kind.ackTimeout` when no acknowledgement comes in time,
  ///   `SocketIOError.Kind.disconnected` when the connection ends first (in both cases the server may or may not
  ///   have handled the event), `SocketIOError.Kind.tooManyPendingAcks`, or `CancellationError`.
  public func emitWithAck(_ event: String, _ args: [SocketValue] = [], timeout: Duration? = nil) async throws
    -> [SocketValue]
  {
    try Self.validate(event)
    let live = try connectedLive()
    guard pendingAcks.count < configuration.maxPendingAcks else {
      throw SocketIOError(
        .tooManyPendingAcks, "\(pendingAcks.count) acknowledgements are awaited already; nothing was sent.")
    }
    // Ids stay below 10^15: the most digits a packet's id may have.
    let id = nextAckID
    nextAckID = (nextAckID + 1) % 1_000_000_000_000_000
    let waiter = OneShot<Result<[SocketValue], any Error>>()
    let wait = timeout ?? configuration.ackTimeout
    let deadline = timers.currentTime() + max(wait, .zero)
    pendingAcks[id] = PendingAck(generation: live.generation, waiter: waiter, deadline: deadline, wait: wait)
    do {
      try await send(.event(event, args, namespace: configuration.namespace, id: id), on: live)
    } catch {
      pendingAcks[id] = nil
      throw error
    }
    if pendingAcks[id] != nil { armAckTimer(for: deadline) }
    return try await withTaskCancellationHandler {
      try await waiter.value().get()
    } onCancel: {
      waiter.fulfill(.failure(CancellationError()))
    }
  }

  /// Answers `event`'s request for an acknowledgement with `args`, on the connection it came on. Does nothing when
  /// the server asked for none.
  ///
  /// - Throws: `SocketIOError.Kind.disconnected` when that connection has ended; as ``emit(_:_:)`` otherwise.
  public func acknowledge(_ event: SocketEvent, with args: [SocketValue] = []) async throws {
    guard let id = event.ackID else { return }
    guard let live, live.generation == event.generation, live.sid != nil, live.endReason == nil else {
      throw SocketIOError(.disconnected, "The connection the event came on has ended; its acknowledgement is moot.")
    }
    try await send(SocketPacket(.ack, namespace: event.namespace, id: id, data: .array(args)), on: live)
  }

  /// Makes sure the one acknowledgement timer goes off by `deadline`.
  ///
  /// One timer for every awaited acknowledgement, set for the earliest deadline, rather than a timer each: making and
  /// cancelling a timer for every acknowledgement cost two thread wake-ups of each round trip. Acknowledgements given
  /// the same timeout come due in the order they were asked for, so the timer is set again only when it goes off.
  func armAckTimer(for deadline: Duration) {
    if let ackTimer, ackTimer.deadline <= deadline { return }
    ackTimer?.timer.cancel()
    let delay = deadline - timers.currentTime()
    ackTimer = (deadline, timers.after(delay) { [weak self] in await self?.ackTimerFired(deadline) })
  }

  /// Fails every acknowledgement whose deadline has come, and sets the timer for the next one. A timer replaced by an
  /// earlier one, whose cancel came as it went off, changes nothing.
  func ackTimerFired(_ deadline: Duration) {
    guard ackTimer?.deadline == deadline else { return }
    ackTimer = nil
    let now = timers.currentTime()
    var next: Duration?
    for (id, pending) in pendingAcks {
      if pending.deadline <= now {
        pendingAcks[id] = nil
        pending.waiter.fulfill(.failure(SocketIOError(.ackTimeout, "No acknowledgement within \(pending.wait).")))
      } else {
        next = min(next ?? pending.deadline, pending.deadline)
      }
    }
    if let next { armAckTimer(for: next) }
  }

  /// The number of acknowledgements awaited.
  var pendingAckCount: Int { pendingAcks.count }

  /// The number of streams listening: what a test of many cycles checks.
  nonisolated var subscriberCount: Int { fanOut.subscriberCount }

  /// Whether the client has stopped reading its connection until a paced stream's reader catches up (for tests).
  nonisolated var isHoldingBack: Bool { fanOut.isHoldingBack }

  /// Whether no connection, run loop or backoff is left: what a test of many cycles checks.
  var hasNoConnection: Bool { live == nil && wake == nil && (run == nil || run?.wanted == false) }

  func connectedLive() throws(SocketIOError) -> LiveConnection {
    guard let live, live.sid != nil, live.endReason == nil else {
      throw SocketIOError(
        .notConnected,
        "Not connected to \(configuration.namespace) (\(state)); nothing was sent. Emit once states() says connected.")
    }
    return live
  }

  private static let reservedEvents: Set<String> = [
    "connect", "connect_error", "disconnect", "disconnecting", "newListener", "removeListener",
  ]

  private static func validate(_ event: String) throws(SocketIOError) {
    guard !event.isEmpty, !reservedEvents.contains(event) else {
      throw SocketIOError(.invalidArguments, "\(event.debugDescription) cannot be emitted: the name is reserved.")
    }
  }

  // MARK: - Outbound

  func send(_ packet: SocketPacket, on live: LiveConnection) async throws {
    let (text, attachments) = try packet.encoded()
    let messages = [EnginePacket.message(text).message] + attachments.map { EnginePacket.binary($0).message }
    if let limit = live.handshake?.maxPayload, let large = messages.first(where: { $0.byteCount > limit }) {
      throw SocketIOError(
        .payloadTooLarge,
        "A message of \(large.byteCount) bytes is over the server's limit of \(limit); nothing was sent.")
    }
    try await write(messages, on: live)
  }

  /// Writes `messages` back to back: a binary packet's attachments follow it with nothing in between.
  func write(_ messages: [WebSocketMessage], on live: LiveConnection) async throws {
    guard let socket = live.socket else {
      throw SocketIOError(.notConnected, "Not connected; nothing was sent.")
    }
    do {
      try await live.turns.run {
        for message in messages { try await socket.send(message) }
      }
    } catch let error as WebSocketError {
      throw SocketIOError(.disconnected, "The connection failed while sending: \(error.description.clause).")
    }
  }
}
