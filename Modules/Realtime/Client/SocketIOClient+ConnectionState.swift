import Foundation
import KeelConcurrency
import Logging
import Networking

// MARK: - Connection state

extension SocketIOClient {
  /// How one connection attempt ended.
  enum Outcome: Sendable {
    /// The server refused the namespace (CONNECT_ERROR), or the auth provider failed: no reconnection.
    case refused(String)
    /// The attempt failed before joining the namespace: try again after the backoff.
    case failed(String)
    /// A joined connection ended, or the app stopped the attempt.
    case ended(SocketDisconnectReason)
  }

  /// One run loop: whether the app still wants its connection, and the task that keeps it.
  final class RunLoop {
    var wanted = true
    var task: Task<Void, Never>?
  }

  /// One WebSocket connection and what the client knows of it.
  final class LiveConnection {
    let generation: Int
    var socket: (any WebSocketConnection)?
    var handshake: EngineHandshake?
    var sid: String?
    var lastPing: Duration = .zero
    var endReason: SocketDisconnectReason?
    var timedOut = false
    var failure: String?
    var task: Task<Outcome, Never>?
    var timer: DeadlineTimer?
    var watchdog: DeadlineTimer?
    var assembling: PartialPacket?
    let turns = AsyncTurns()

    init(generation: Int) { self.generation = generation }
  }

  /// A binary packet awaiting its attachments.
  struct PartialPacket {
    var packet: SocketPacket
    var expected: Int
    var attachments: [Data] = []
    var bytes = 0
  }

  /// An acknowledgement awaited.
  struct PendingAck {
    let generation: Int
    let waiter: OneShot<Result<[SocketValue], any Error>>
    /// When it times out, on the timers' timeline (``DeadlineTimers/currentTime()``).
    let deadline: Duration
    /// How long it was given, for the timeout's message.
    let wait: Duration
  }
}
