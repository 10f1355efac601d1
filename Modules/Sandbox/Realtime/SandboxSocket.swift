import Foundation
import HummingbirdWebSocket
import KeelConcurrency
import NIOCore
import Networking

/// One WebSocket of the Sandbox's Socket.IO server: its namespaces (with their socket ids and the user whose access
/// token joined each), the rooms its client joined, and its heartbeat.
///
/// Whose socket it is belongs to the server: the chat's pushes address a user (``isUser(_:in:)``), never a room, so a
/// client that joins, leaves or emits to a room of any name reaches only the clients in that room.
final class SandboxSocket: Sendable {
  let id: Int
  let channel: any Channel
  private let outbound: WebSocketOutboundWriter
  private let turns = AsyncTurns()
  private let state = Locked(State())

  private struct State {
    var namespaces: [String: String] = [:]
    /// The user whose access token joined each namespace.
    var users: [String: String] = [:]
    /// The digest of the access token that joined each namespace: the session it belongs to.
    var tokens: [String: String] = [:]
    var rooms: Set<String> = []
    var pings = 0
    var lastPong = 0
  }

  init(id: Int, outbound: WebSocketOutboundWriter, channel: any Channel) {
    self.id = id
    self.outbound = outbound
    self.channel = channel
  }

  /// Writes `messages` back to back, nothing of another packet between them.
  func write(_ messages: [Networking.WebSocketMessage]) async throws {
    try await write(messages, in: turns.take())
  }

  /// Takes the socket's next place in line now, for a write whose order is decided before the task that makes it
  /// starts (two pushes made one after the other go out in that order).
  func reserve() -> AsyncTurns.Turn { turns.take() }

  /// Writes `messages` back to back in `turn` (from ``reserve()``), once every earlier turn has ended; then ends it.
  func write(_ messages: [Networking.WebSocketMessage], in turn: AsyncTurns.Turn) async throws {
    await turn.wait()
    defer { turn.end() }
    for message in messages {
      switch message {
      case .text(let text): try await outbound.write(.text(text))
      case .binary(let data): try await outbound.write(.binary(ByteBuffer(bytes: data)))
      }
    }
  }

  /// Joins `namespace` as `user` (the owner of the access token that joined, if any), with the access token whose
  /// digest is `token`; returns the socket's id there.
  func join(_ namespace: String, as user: String?, token: String?) -> String {
    state.withLock { state in
      let sid = state.namespaces[namespace] ?? UUID().uuidString
      state.namespaces[namespace] = sid
      state.users[namespace] = user
      state.tokens[namespace] = token
      return sid
    }
  }

  /// Leaves `namespace` and its rooms.
  func leave(_ namespace: String) {
    state.withLock { state in
      state.namespaces[namespace] = nil
      state.users[namespace] = nil
      state.tokens[namespace] = nil
      state.rooms = state.rooms.filter { !$0.hasPrefix(namespace + "\u{0}") }
    }
  }

  /// Enters `room` of `namespace`.
  func enter(_ room: String, in namespace: String) {
    _ = state.withLock { $0.rooms.insert(namespace + "\u{0}" + room) }
  }

  /// Leaves `room` of `namespace`.
  func exit(_ room: String, in namespace: String) {
    _ = state.withLock { $0.rooms.remove(namespace + "\u{0}" + room) }
  }

  /// Whether it has joined `namespace`, and `room` there when one is given.
  func isIn(namespace: String, room: String?) -> Bool {
    state.withLock { state in
      state.namespaces[namespace] != nil && (room.map { state.rooms.contains(namespace + "\u{0}" + $0) } ?? true)
    }
  }

  /// The digests of the access tokens its namespaces were joined with.
  var joinedTokens: [String] { state.withLock { Array($0.tokens.values) } }

  /// Whether an access token whose digest is among `tokens` joined any of its namespaces.
  func joined(withAnyOf tokens: Set<String>) -> Bool {
    state.withLock { state in state.tokens.values.contains { tokens.contains($0) } }
  }

  /// The user whose access token joined `namespace`, if any.
  func user(in namespace: String) -> String? {
    state.withLock { $0.namespaces[namespace] != nil ? $0.users[namespace] : nil }
  }

  /// Each namespace it has joined, with its socket id there, the user whose token joined it and the rooms it is in
  /// there: what the console lists.
  var memberships: [(namespace: String, sid: String, user: String?, rooms: [String])] {
    state.withLock { state in
      state.namespaces.sorted { $0.key < $1.key }.map { namespace, sid in
        let prefix = namespace + "\u{0}"
        let rooms = state.rooms.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }.sorted()
        return (namespace, sid, state.users[namespace], rooms)
      }
    }
  }

  /// Whether the access token that joined `namespace` is `user`'s.
  func isUser(_ user: String, in namespace: String) -> Bool {
    state.withLock { $0.namespaces[namespace] != nil && $0.users[namespace] == user }
  }

  /// Counts a ping sent; returns its number.
  func pinging() -> Int {
    state.withLock { state in
      state.pings += 1
      return state.pings
    }
  }

  /// Records a pong, answering the latest ping.
  func ponged() { state.withLock { $0.lastPong = $0.pings } }

  /// Whether ping `number` was answered.
  func ponged(since number: Int) -> Bool { state.withLock { $0.lastPong >= number } }
}
