import Clocks
import Foundation
import KeelConcurrency
import Networking
import TestSupport
import Testing

@testable import Realtime

/// REQUIREMENTS R2–R7 on a scripted server and a TestClock: heartbeat, backoff, timeouts, auth per connect, the end
/// of a connection for good, generations, acks, the lifecycle.
@Suite("SocketIOClient", .timeLimit(.minutes(10)))
struct SocketIOClientTests {
  /// A client on a scripted transport and a TestClock, its states recorded.
  struct Harness {
    let clock = TestClock()
    let transport = ScriptedWebSocketTransport()
    let client: SocketIOClient
    let states = Recorder<SocketConnectionState>()
    let authCalls = Locked(0)

    init(
      namespace: String = "/", reconnection: ReconnectionPolicy = ReconnectionPolicy(random: { 0.5 }),
      monitor: (any NetworkMonitor)? = nil
    ) throws {
      let calls = authCalls
      let configuration = SocketIOConfiguration(
        url: URL(string: "http://127.0.0.1:9")!, namespace: namespace,
        auth: {
          let call = calls.withLock { count in
            count += 1
            return count
          }
          return ["token": .string("t\(call)")]
        },
        reconnection: reconnection)
      client = try SocketIOClient(
        configuration: configuration, transport: transport, clock: clock, networkMonitor: monitor)
      let stream = client.states()
      let states = self.states
      Task {
        for await state in stream { states.record(state) }
      }
    }

    /// Connection `index` (0 for the first), once the client has opened it.
    func connection(_ index: Int) async throws -> ScriptedConnection {
      #expect(await eventually { transport.connections.count > index })
      return try #require(transport.connections.dropFirst(index).first)
    }

    /// Plays the server's side of a handshake on `connection` and waits for the client to be connected.
    func accept(
      _ connection: ScriptedConnection, sid: String, namespace: String = "/", pingInterval: Int = 25_000,
      pingTimeout: Int = 20_000
    ) async -> Bool {
      connection.open(pingInterval: pingInterval, pingTimeout: pingTimeout)
      guard await eventually({ connection.sentTexts.contains { $0.hasPrefix("40") } }) else { return false }
      connection.serverSends("40" + (namespace == "/" ? "" : namespace + ",") + #"{"sid":"\#(sid)"}"#)
      return await eventually { client.state == .connected(sid: sid) }
    }

    /// Whether the client reaches `state`.
    func reaches(_ state: SocketConnectionState) async -> Bool {
      await eventually { states.elements.contains(state) }
    }
  }

  @Test("It joins its namespace with the auth payload, asked for anew on every connect (R4)")
  func authOnEveryConnect() async throws {
    let harness = try Harness(namespace: "/chat")
    await harness.client.connect()
    let first = try await harness.connection(0)
    #expect(await harness.accept(first, sid: "a", namespace: "/chat"))
    #expect(first.sentTexts.first == #"40/chat,{"token":"t1"}"#)

    first.breaks()
    #expect(await harness.reaches(.disconnected(.transportError)))
    #expect(await harness.reaches(.reconnecting(attempt: 1, delay: .seconds(1))))
    #expect(await harness.clock.sleeperArrived())
    await harness.clock.advance(by: .seconds(1))
    let second = try await harness.connection(1)
    #expect(await harness.accept(second, sid: "b", namespace: "/chat"))
    #expect(second.sentTexts.first == #"40/chat,{"token":"t2"}"#)
    await harness.client.disconnect()
  }

  @Test("Every ping is answered; none within pingInterval + pingTimeout is a ping timeout, then a reconnection (R2)")
  func heartbeat() async throws {
    let harness = try Harness()
    await harness.client.connect()
    let connection = try await harness.connection(0)
    #expect(await harness.accept(connection, sid: "a", pingInterval: 1_000, pingTimeout: 500))

    await harness.clock.advance(by: .milliseconds(1_000))
    connection.serverSends("2")
    #expect(await eventually { connection.sentTexts.contains("3") })
    await harness.clock.advance(by: .milliseconds(1_400))
    await settle()
    #expect(harness.client.state == .connected(sid: "a"))

    await harness.clock.advance(by: .milliseconds(200))
    #expect(await harness.reaches(.disconnected(.pingTimeout)))
    #expect(await harness.reaches(.reconnecting(attempt: 1, delay: .seconds(1))))
    #expect(await eventually { connection.isClosed })
    await harness.client.disconnect()
  }

  @Test("Failed attempts wait 1 s, 2 s, 4 s (no jitter drawn), then connect; the count starts again after (R3)")
  func backoff() async throws {
    let harness = try Harness()
    harness.transport.failNextConnects(3)
    await harness.client.connect()
    for (attempt, seconds) in [(1, 1), (2, 2), (3, 4)] {
      #expect(await harness.reaches(.reconnecting(attempt: attempt, delay: .seconds(seconds))))
      #expect(await harness.clock.sleeperArrived())
      await harness.clock.advance(by: .seconds(seconds))
    }
    #expect(await harness.accept(try await harness.connection(0), sid: "a"))
    try await harness.connection(0).serverCloses()
    #expect(await harness.reaches(.disconnected(.transportClose)))
    // The next attempt's state is published just after the disconnection's.
    #expect(
      await eventually {
        harness.states.elements.filter { $0 == .reconnecting(attempt: 1, delay: .seconds(1)) }.count == 2
      })
    await harness.client.disconnect()
  }

  @Test("Jitter moves each wait by up to half of it either way, and the wait stops growing at maxDelay")
  func jitter() {
    let low = ReconnectionPolicy(random: { 0 })
    let high = ReconnectionPolicy(random: { 0.999_999 })
    #expect(low.delay(beforeAttempt: 1) == .milliseconds(500))
    #expect(high.delay(beforeAttempt: 1) > .milliseconds(1_499))
    #expect(ReconnectionPolicy(random: { 0.5 }).delay(beforeAttempt: 10) == .seconds(5))
    #expect(!ReconnectionPolicy.never.allows(attempt: 1))
  }

  @Test("An attempt that hangs (a dead network) ends at the connect timeout and is tried again (R3)")
  func connectTimeout() async throws {
    let harness = try Harness()
    harness.transport.hangConnects(true)
    await harness.client.connect()
    #expect(await harness.clock.sleeperArrived())
    await harness.clock.advance(by: .seconds(20))
    #expect(await harness.reaches(.reconnecting(attempt: 1, delay: .seconds(1))))
    harness.transport.hangConnects(false)
    #expect(await harness.clock.sleeperArrived())
    await harness.clock.advance(by: .seconds(1))
    #expect(await harness.accept(try await harness.connection(0), sid: "a"))
    await harness.client.disconnect()
  }

  @Test("A CONNECT read just as the connect timeout fires ends the attempt as timed out, never as connected (R3)")
  func connectTimeoutRacesTheServersConnect() async throws {
    let harness = try Harness()
    await harness.client.connect()
    let connection = try await harness.connection(0)
    connection.open()
    #expect(await eventually { connection.sentTexts.contains { $0.hasPrefix("40") } })
    // The client's reading task takes the server's CONNECT; the timeout fires before the client acts on it.
    connection.holdTaken()
    connection.serverSends(#"40{"sid":"a"}"#)
    #expect(await eventually { connection.taken == 2 })
    await harness.clock.advance(by: .seconds(20))
    #expect(await eventually { connection.readerCancelledWhileHeld })
    connection.releaseHeld()
    #expect(await harness.reaches(.reconnecting(attempt: 1, delay: .seconds(1))))
    #expect(!harness.states.elements.contains(.connected(sid: "a")))
    #expect(await harness.clock.sleeperArrived())
    await harness.clock.advance(by: .seconds(1))
    #expect(await harness.accept(try await harness.connection(1), sid: "b"))
    await harness.client.disconnect()
  }

  @Test("The network coming back starts a waiting reconnection at once (R3)")
  func networkBack() async throws {
    let monitor = ManualNetworkMonitor(.online)
    let watched = try Harness(
      reconnection: ReconnectionPolicy(initialDelay: .seconds(60), random: { 0.5 }), monitor: monitor)
    watched.transport.failNextConnects(1)
    await watched.client.connect()
    #expect(await watched.reaches(.reconnecting(attempt: 1, delay: .seconds(5))))
    monitor.status = .offline
    monitor.status = .online
    #expect(await watched.accept(try await watched.connection(0), sid: "a"))
    await watched.client.disconnect()
  }

  @Test("The server's disconnect and its refusal end the connection for good; so does the app's (R3)")
  func deliberateEnds() async throws {
    let server = try Harness()
    await server.client.connect()
    let connection = try await server.connection(0)
    #expect(await server.accept(connection, sid: "a"))
    connection.serverSends("41")
    #expect(await server.reaches(.disconnected(.ioServerDisconnect)))
    await server.clock.advance(by: .seconds(60))
    await settle()
    #expect(server.transport.connections.count == 1)

    let refused = try Harness()
    await refused.client.connect()
    let refusing = try await refused.connection(0)
    refusing.open()
    #expect(await eventually { refusing.sentTexts.count == 1 })
    refusing.serverSends(#"44{"message":"Not authorized"}"#)
    #expect(await refused.reaches(.refused(message: "Not authorized")))
    await refused.clock.advance(by: .seconds(60))
    await settle()
    #expect(refused.transport.connections.count == 1)
    #expect(await eventually { refusing.isClosed })

    let app = try Harness()
    await app.client.connect()
    #expect(await app.accept(try await app.connection(0), sid: "a"))
    await app.client.disconnect()
    #expect(app.client.state == .disconnected(.ioClientDisconnect))
    #expect(try await app.connection(0).sentTexts.last == "41")
    await app.clock.advance(by: .seconds(60))
    await settle()
    #expect(app.transport.connections.count == 1)
  }

  @Test("Emitting while disconnected fails at once, typed; a reserved name or NaN is refused before sending (R7)")
  func emitPolicy() async throws {
    let harness = try Harness()
    let offline = await #expect(throws: SocketIOError.self) { try await harness.client.emit("hello", [1]) }
    #expect(offline?.kind == .notConnected)
    await harness.client.connect()
    #expect(await harness.accept(try await harness.connection(0), sid: "a"))
    let reserved = await #expect(throws: SocketIOError.self) { try await harness.client.emit("disconnect") }
    #expect(reserved?.kind == .invalidArguments)
    let nan = await #expect(throws: SocketIOError.self) { try await harness.client.emit("n", [.number(.nan)]) }
    #expect(nan?.kind == .invalidArguments)
    try await harness.client.emit("hello", ["world", .binary(Data([7]))])
    let connection = try await harness.connection(0)
    #expect(
      connection.sent.suffix(2) == [.text(#"451-["hello","world",{"_placeholder":true,"num":0}]"#), .binary(Data([7]))])
    await harness.client.disconnect()
  }

  @Test("Acknowledgements given different timeouts each time out at their own deadline, an answered one never")
  func ackDeadlines() async throws {
    let harness = try Harness()
    await harness.client.connect()
    let connection = try await harness.connection(0)
    #expect(await harness.accept(connection, sid: "a"))
    let long = Task { try await harness.client.emitWithAck("long", [], timeout: .seconds(10)) }
    #expect(await eventually { connection.sentTexts.contains(#"420["long"]"#) })
    let answered = Task { try await harness.client.emitWithAck("answered", [], timeout: .seconds(2)) }
    #expect(await eventually { connection.sentTexts.contains(#"421["answered"]"#) })
    let short = Task { try await harness.client.emitWithAck("short", [], timeout: .seconds(3)) }
    #expect(await eventually { connection.sentTexts.contains(#"422["short"]"#) })
    connection.serverSends(#"431["ok"]"#)
    #expect(try await answered.value == ["ok"])

    await harness.clock.advance(by: .seconds(3))
    let shortFailure = await #expect(throws: SocketIOError.self) { try await short.value }
    #expect(shortFailure?.kind == .ackTimeout)
    #expect(await harness.client.pendingAckCount == 1)
    await harness.clock.advance(by: .seconds(6))
    #expect(await harness.client.pendingAckCount == 1)
    await harness.clock.advance(by: .seconds(1))
    let longFailure = await #expect(throws: SocketIOError.self) { try await long.value }
    #expect(longFailure?.kind == .ackTimeout)
    #expect(await harness.client.pendingAckCount == 0)
    await harness.client.disconnect()
  }

  @Test("An ack comes back to its emit; one that does not come times out; one of an old connection fails (R5)")
  func acks() async throws {
    let harness = try Harness()
    await harness.client.connect()
    let first = try await harness.connection(0)
    #expect(await harness.accept(first, sid: "a"))

    let answered = Task { try await harness.client.emitWithAck("q", [1]) }
    #expect(await eventually { first.sentTexts.contains(#"420["q",1]"#) })
    first.serverSends(#"430["a",2]"#)
    #expect(try await answered.value == ["a", 2])

    let unanswered = Task { try await harness.client.emitWithAck("q", [], timeout: .seconds(5)) }
    #expect(await eventually { first.sentTexts.contains(#"421["q"]"#) })
    #expect(await harness.clock.sleeperArrived())
    await harness.clock.advance(by: .seconds(5))
    let timedOut = await #expect(throws: SocketIOError.self) { try await unanswered.value }
    #expect(timedOut?.kind == .ackTimeout)

    let cut = Task { try await harness.client.emitWithAck("q", []) }
    #expect(await eventually { first.sentTexts.contains(#"422["q"]"#) })
    first.breaks()
    let lost = await #expect(throws: SocketIOError.self) { try await cut.value }
    #expect(lost?.kind == .disconnected)

    #expect(await harness.reaches(.reconnecting(attempt: 1, delay: .seconds(1))))
    #expect(await harness.clock.sleeperArrived())
    await harness.clock.advance(by: .seconds(1))
    let second = try await harness.connection(1)
    #expect(await harness.accept(second, sid: "b"))
    let fresh = Task { try await harness.client.emitWithAck("q", []) }
    #expect(await eventually { second.sentTexts.contains(#"423["q"]"#) })
    second.serverSends(#"432["stale"]"#)
    second.serverSends(#"433["fresh"]"#)
    #expect(try await fresh.value == ["fresh"])
    #expect(await harness.client.pendingAckCount == 0)
    await harness.client.disconnect()
  }

  @Test("Events arrive in order with binary attachments in place; the server's ack request is answered")
  func inboundEvents() async throws {
    let harness = try Harness()
    let events = harness.client.events()
    await harness.client.connect()
    let connection = try await harness.connection(0)
    #expect(await harness.accept(connection, sid: "a"))
    connection.serverSends(#"42["first",1]"#)
    connection.serverSends(#"451-7["file",{"_placeholder":true,"num":0}]"#)
    connection.serverSends(Data([1, 2, 3]))
    var iterator = events.makeAsyncIterator()
    let first = await iterator.next()
    #expect(first?.name == "first")
    #expect(first?.args == [1])
    let file = try #require(await iterator.next())
    #expect(file.args == [.binary(Data([1, 2, 3]))])
    #expect(file.ackID == 7)
    try await harness.client.acknowledge(file, with: ["thanks"])
    #expect(await eventually { connection.sentTexts.last == #"437["thanks"]"# })

    connection.breaks()
    #expect(await harness.reaches(.reconnecting(attempt: 1, delay: .seconds(1))))
    #expect(await harness.clock.sleeperArrived())
    await harness.clock.advance(by: .seconds(1))
    #expect(await harness.accept(try await harness.connection(1), sid: "b"))
    let stale = await #expect(throws: SocketIOError.self) { try await harness.client.acknowledge(file) }
    #expect(stale?.kind == .disconnected)
    await harness.client.disconnect()
  }

  @Test(
    "A paced stream its reader lags behind holds the client back: it stops taking messages, then goes on as it reads")
  func backPressure() async throws {
    let harness = try Harness()
    let paced = harness.client.activity(holdingAtMost: 4)
    await harness.client.connect()
    let connection = try await harness.connection(0)
    #expect(await harness.accept(connection, sid: "a"))
    let before = connection.taken
    for number in 0..<100 { connection.serverSends(#"42["tick",\#(number)]"#) }
    // Nothing reads the paced stream: the client takes what fills it, and no more.
    #expect(await eventually { harness.client.isHoldingBack })
    let held = connection.taken - before
    #expect(held < 10, "the client took \(held) of the 100 messages while its reader took none")
    #expect(harness.client.isHoldingBack && connection.taken - before == held, "and it stays there")

    var ticks: [Int] = []
    for await item in paced {
      if case .event(let event) = item, case .number(let number)? = event.args.first { ticks.append(Int(number)) }
      if ticks.count == 100 { break }
    }
    #expect(ticks == Array(0..<100), "every message, in order, once read")
    await harness.client.disconnect()
  }

  @Test("suspend closes without reconnecting; resume connects now (R6)")
  func lifecycle() async throws {
    let harness = try Harness()
    await harness.client.connect()
    #expect(await harness.accept(try await harness.connection(0), sid: "a"))
    await harness.client.suspend()
    #expect(harness.client.state == .suspended)
    await harness.clock.advance(by: .seconds(60))
    await settle()
    #expect(harness.transport.connections.count == 1)
    await harness.client.resume()
    #expect(await harness.accept(try await harness.connection(1), sid: "b"))
    await harness.client.disconnect()
  }

  @Test("1,000 connect and disconnect cycles leave no connection, ack, task or stream behind")
  func cycles() async throws {
    let harness = try Harness()
    let listening = harness.client.subscriberCount
    for cycle in 0..<1_000 {
      let states = harness.client.states()
      await harness.client.connect()
      let connection = try await harness.connection(cycle)
      #expect(await harness.accept(connection, sid: "s\(cycle)"))
      await harness.client.disconnect()
      _ = states
    }
    #expect(harness.transport.connections.allSatisfy { $0.isClosed })
    #expect(await harness.client.pendingAckCount == 0)
    #expect(await harness.client.hasNoConnection)
    // Each cycle's stream, dropped by its reader, has stopped listening.
    #expect(await eventually { harness.client.subscriberCount == listening })
  }
}
