import Foundation
import KeelConcurrency
import Networking

/// A `WebSocketTransport` whose server the test plays: each connect opens a ``ScriptedConnection`` (or fails, while
/// `failingConnects` is above zero), and the test sends its messages and reads what the client sent.
final class ScriptedWebSocketTransport: WebSocketTransport {
  private let state = Locked((connections: [ScriptedConnection](), failingConnects: 0, hanging: false))

  /// The connections opened so far, oldest first.
  var connections: [ScriptedConnection] { state.withLock { $0.connections } }

  /// Makes the next `count` connects fail as a refused TCP connection does.
  func failNextConnects(_ count: Int) { state.withLock { $0.failingConnects = count } }

  /// Makes connects hang until cancelled (a dead network), or stop hanging.
  func hangConnects(_ hanging: Bool) { state.withLock { $0.hanging = hanging } }

  func connect(to url: URL, headers: [String: String]) async throws -> any WebSocketConnection {
    let (fails, hangs) = state.withLock { state in
      defer { state.failingConnects = max(0, state.failingConnects - 1) }
      return (state.failingConnects > 0, state.hanging)
    }
    if hangs {
      // Until the connecting task is cancelled: a stream nobody feeds ends only then.
      let (never, feed) = AsyncStream<Never>.makeStream()
      defer { feed.finish() }
      for await _ in never {}
      throw CancellationError()
    }
    if fails {
      var error = WebSocketError(.connectionFailed, "Refused.")
      error.urlError = URLError(.cannotConnectToHost)
      throw error
    }
    let connection = ScriptedConnection()
    state.withLock { $0.connections.append(connection) }
    return connection
  }
}

/// One connection of a ``ScriptedWebSocketTransport``.
final class ScriptedConnection: WebSocketConnection {
  let messages: AsyncThrowingStream<WebSocketMessage, any Error>
  private let inbound = PacedBuffer<WebSocketMessage>()
  private let state = Locked((sent: [WebSocketMessage](), closed: false))
  private let ended = OneShot<WebSocketClosure>()
  private let takenCount = Locked(0)
  private let hold = Locked((gate: OneShot<Void>?.none, readerCancelled: false))

  init() {
    let (inbound, takenCount, hold) = (inbound, takenCount, hold)
    messages = AsyncThrowingStream(unfolding: {
      let message = try await inbound.next()
      if message != nil { takenCount.withLock { $0 += 1 } }
      if message != nil, let gate = hold.withLock({ $0.gate }) {
        await withTaskCancellationHandler {
          await gate.value()
        } onCancel: {
          hold.withLock { $0.readerCancelled = true }
        }
      }
      return message
    })
  }

  /// Holds each message the client takes from here on until ``releaseHeld()``: the client's reading task has it in
  /// hand but does not act on it yet.
  func holdTaken() { hold.withLock { $0.gate = OneShot() } }
  /// Lets the message held by ``holdTaken()`` go on to the client, and the ones after it.
  func releaseHeld() {
    let gate = hold.withLock { state in
      defer { state.gate = nil }
      return state.gate
    }
    _ = gate?.fulfill(())
  }
  /// Whether the client's reading task was cancelled while it waited on a held message.
  var readerCancelledWhileHeld: Bool { hold.withLock { $0.readerCancelled } }

  /// How many of the server's messages the client has taken from the connection so far.
  var taken: Int { takenCount.withLock { $0 } }

  /// What the client sent, in order.
  var sent: [WebSocketMessage] { state.withLock { $0.sent } }
  /// The texts the client sent.
  var sentTexts: [String] {
    sent.compactMap { if case .text(let text) = $0 { text } else { nil } }
  }
  /// Whether the client closed it.
  var isClosed: Bool { state.withLock { $0.closed } }

  /// The server sends `text`.
  func serverSends(_ text: String) { inbound.pushNow(.text(text)) }
  /// The server sends binary `data`.
  func serverSends(_ data: Data) { inbound.pushNow(.binary(data)) }
  /// The server closes it with a close handshake.
  func serverCloses() {
    inbound.finish()
    ended.fulfill(WebSocketClosure(code: .normalClosure, byServer: true))
  }
  /// The connection breaks.
  func breaks() {
    inbound.finish(throwing: WebSocketError(.connectionLost, "Reset."))
    ended.fulfill(WebSocketClosure(code: .abnormalClosure, byServer: true))
  }

  /// The Engine.IO handshake with a heartbeat of `pingInterval + pingTimeout` milliseconds.
  func open(sid: String = "engine", pingInterval: Int = 25_000, pingTimeout: Int = 20_000, maxPayload: Int = 1_000_000)
  {
    serverSends(
      "0" + EngineHandshakeJSON.json(sid: sid, pingInterval, pingTimeout, maxPayload))
  }

  func send(_ message: WebSocketMessage) async throws {
    let closed = state.withLock { state in
      if !state.closed { state.sent.append(message) }
      return state.closed
    }
    if closed { throw WebSocketError(.closed, "Closed.") }
  }

  func close(_ code: WebSocketCloseCode, reason: String) async {
    state.withLock { $0.closed = true }
    inbound.finish()
    ended.fulfill(WebSocketClosure(code: code, reason: reason, byServer: false))
  }

  func closure() async -> WebSocketClosure { await ended.value() }
}

/// The handshake's JSON.
enum EngineHandshakeJSON {
  static func json(sid: String, _ pingInterval: Int, _ pingTimeout: Int, _ maxPayload: Int) -> String {
    #"{"sid":"\#(sid)","upgrades":[],"pingInterval":\#(pingInterval),"pingTimeout":\#(pingTimeout),"maxPayload":\#(maxPayload)}"#
  }
}
