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

/// The Sandbox's Socket.IO server (SandboxAPI §6): Engine.IO v4 and Socket.IO v5 over WebSocket at `/socket.io/`,
/// namespaces, rooms, the heartbeat the configuration sets, CONNECT checked against the auth backend's access tokens,
/// and faults from the control plane: drop every socket, fall silent for a while, delay pushes, deliver each twice,
/// shuffle their order.
///
/// Events it answers, in every namespace: `echo ARGS…` (emits `echo` with ARGS back, acknowledges with ARGS),
/// `join ROOM` and `leave ROOM` (acknowledged `joined`, `left`), `to_room ROOM ARGS…` (emits `room_message` with
/// ARGS to ROOM). In `/`, a socket that joined with an access token emits the chat's `typing` (SandboxAPI §7), which
/// goes to the chat backend. `POST /_sandbox/socketio/emit` pushes any event to a namespace or a room.
///
/// Rooms are the clients': the server's own pushes (the chat's) go to the sockets of a user (``push(toUser:event:args:)``),
/// which no event of a client can join, leave or reach, whatever the name of the room it gives.
final class SocketIOHub: Sendable {
  /// The path that upgrades.
  static let path = "/socket.io/"
  /// The largest message accepted, a packet and its binary attachments together: Engine.IO's `maxPayload`.
  static let maxPayload = 1_000_000

  let pingInterval: Duration
  let pingTimeout: Duration
  /// The most connections one address may hold at once.
  let connectionsPerAddress: Int
  /// The reason a token cannot join, `nil` when it can.
  let refusal: @Sendable (String?) -> String?
  /// The user id of a token that joined: the socket's user in that namespace, whom SandboxAPI §7's pushes address.
  let userID: @Sendable (String?) -> String?
  /// Whether the session of the access token with this digest goes on.
  let sessionGoesOn: @Sendable (String) -> Bool
  /// What a user's socket emits to the chat backend (`typing`), with the user: set once the backend exists.
  let chatEvents = Locked<(@Sendable (_ userID: String, _ event: String, _ args: [SocketValue]) -> Void)?>(nil)
  let state = Locked(State())

  struct State {
    var nextID = 0
    var sockets: [Int: SandboxSocket] = [:]
    /// The connections each address holds or is upgrading, against ``connectionsPerAddress``.
    var held: [String: Int] = [:]
    var silencedUntil: ContinuousClock.Instant?
    var delay: Duration = .zero
    var duplicates = false
    /// The most a push waits at random, so that pushes close together overtake each other.
    var reorder: Duration = .zero
    /// How many of the next pushes that would reach a socket are lost instead, the connections kept.
    var lose = 0
  }

  /// A hub with `pingInterval` and `pingTimeout`, at most `connectionsPerAddress` connections from one address,
  /// asking `refusal` about each CONNECT's token, `userID` whose it is, and `sessionGoesOn` at each ping whether the
  /// session of the token (its digest) a socket joined with goes on.
  init(
    pingInterval: Duration, pingTimeout: Duration, connectionsPerAddress: Int = 64,
    refusal: @escaping @Sendable (String?) -> String?, userID: @escaping @Sendable (String?) -> String? = { _ in nil },
    sessionGoesOn: @escaping @Sendable (String) -> Bool = { _ in true }
  ) {
    self.sessionGoesOn = sessionGoesOn
    self.pingInterval = pingInterval
    self.pingTimeout = pingTimeout
    self.connectionsPerAddress = connectionsPerAddress
    self.refusal = refusal
    self.userID = userID
  }

  // MARK: - Control

  /// Cuts every connection without a close frame, as a server that dies does.
  func dropAll() {
    let sockets = state.withLock { Array($0.sockets.values) }
    for socket in sockets { socket.channel.close(promise: nil) }
  }

  /// Closes the connections that joined with one of these access tokens (their digests), as a server does when their
  /// session ends: the client connects again, is refused, and learns that its session is over. A connection joined
  /// with a token that has since expired stays (its session goes on, and the client refreshes the token when it
  /// reconnects).
  func endSessions(tokens: Set<String>) {
    guard !tokens.isEmpty else { return }
    let sockets = state.withLock { state in state.sockets.values.filter { $0.joined(withAnyOf: tokens) } }
    for socket in sockets { socket.channel.close(promise: nil) }
  }

  /// Sends nothing, pings and handshakes included, and ignores what comes in, for `duration`.
  func silence(for duration: Duration) {
    state.withLock { $0.silencedUntil = .now + duration }
  }

  /// Delays every push by `delay`.
  func delayPushes(by delay: Duration) { state.withLock { $0.delay = delay } }

  /// Delivers every push twice, or once again.
  func duplicatePushes(_ duplicates: Bool) { state.withLock { $0.duplicates = duplicates } }

  /// Holds each push a random 0 to `window` before sending it, so that pushes sent within `window` of each other
  /// arrive in any order; `.zero` ends it.
  func reorderPushes(within window: Duration) { state.withLock { $0.reorder = window } }

  /// Loses the next `count` pushes that would reach a socket, as a server that drops a message on its way without
  /// dropping the connection does.
  func losePushes(_ count: Int) { state.withLock { $0.lose = count } }

  /// Ends every fault.
  func clearFaults() {
    state.withLock { state in
      state.lose = 0
      state.silencedUntil = nil
      state.delay = .zero
      state.duplicates = false
      state.reorder = .zero
    }
  }

  /// The number of open connections.
  var connectionCount: Int { state.withLock { $0.sockets.count } }

  /// Emits `event` with `args` to every socket in `namespace`, or only those in `room`; returns how many.
  @discardableResult
  func push(namespace: String, room: String?, event: String, args: [SocketValue]) -> Int {
    push(event: event, args: args, namespace: namespace) { $0.isIn(namespace: namespace, room: room) }
  }

  /// Emits `event` with `args` to every socket in the namespace `/` that the user `id`'s access token joined; returns
  /// how many.
  @discardableResult
  func push(toUser id: String, event: String, args: [SocketValue]) -> Int {
    push(event: event, args: args, namespace: "/") { $0.isUser(id, in: "/") }
  }

  private func push(
    event: String, args: [SocketValue], namespace: String, to target: (SandboxSocket) -> Bool
  ) -> Int {
    let (targets, delay, duplicates, reorder) = state.withLock { state in
      var targets = state.sockets.values.filter(target)
      if !targets.isEmpty, state.lose > 0 {
        state.lose -= 1
        targets = []
      }
      return (targets, state.delay, state.duplicates, state.reorder)
    }
    let packet = SocketPacket.event(event, args, namespace: namespace)
    let copies = duplicates ? 2 : 1
    for socket in targets {
      let wait = delay + (reorder > .zero ? reorder * Double.random(in: 0..<1) : .zero)
      guard wait > .zero else {
        // Each socket's place in line is taken now, before the task starts: pushes made one after the other (a
        // "typing" then a "stopped typing") reach a client in that order unless a fault reorders them.
        let turn = socket.reserve()
        Task { try? await self.send(packet, copies: copies, to: socket, in: turn) }
        continue
      }
      Task {
        try? await Task.sleep(for: wait)
        try? await self.send(packet, copies: copies, to: socket, in: socket.reserve())
      }
    }
    return targets.count
  }

  var silenced: Bool {
    state.withLock { state in
      guard let until = state.silencedUntil else { return false }
      if until <= .now { state.silencedUntil = nil }
      return until > .now
    }
  }
}
