import Crypto
import Foundation
import KeelRandom
import Logging
import NIOCore
import Networking
import Sandbox
import TestSupport
import Testing

@testable import NIOTransports

/// The swift-websocket transport against the Sandbox's echo (SandboxAPI §6a) on 127.0.0.1.
@Suite(.timeLimit(.minutes(10))) struct NIOWebSocketTransportTests {
  /// A minute to connect rather than the default 10 s, and to hear the server's close frame rather than 5 s: with
  /// every suite running at once on two cores, the Sandbox's answer to an upgrade has taken longer than 10 s, and its
  /// answer to a close longer than 5 s (the closure was then the cut's 1006, not the 1000 the test is about).
  let transport = NIOWebSocketTransport(
    configuration: .init(connectTimeout: .seconds(60), closeTimeout: .seconds(60)))

  private func echo(_ sandbox: RunningSandbox) -> URL {
    URL(string: "ws://127.0.0.1:\(sandbox.port)/ws/echo")!
  }

  @Test func echoesTextAndBinaryInOrder() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let connection = try await transport.connect(to: echo(sandbox), headers: ["X-Test": "1"])
    try await connection.send(.text("héllo"))
    try await connection.send(.binary(Data([0, 1, 2, 255])))
    var inbound = connection.messages.makeAsyncIterator()
    #expect(try await inbound.next() == .text("héllo"))
    #expect(try await inbound.next() == .binary(Data([0, 1, 2, 255])))
    await connection.close(.normalClosure, reason: "done")
    #expect(try await inbound.next() == nil)  // finished, not failed
    let closure = await connection.closure()
    #expect(closure.code == .normalClosure)
    #expect(!closure.byServer)
    await sandbox.stop()
  }

  /// A reader that prefers the connection's executor takes each message on the event loop that read it from the
  /// socket, where the connection's own reading ran: no other thread is woken to hand it over.
  @Test func aReaderThatPrefersTheConnectionsExecutorReadsOnItsEventLoop() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let connection = try await transport.connect(to: echo(sandbox), headers: [:])
    let executor = try #require(connection.taskExecutor as? EventLoopTaskExecutor)
    let onTheLoop = try await withTaskExecutorPreference(executor) { () async throws -> [Bool] in
      var inbound = connection.messages.makeAsyncIterator()
      var onTheLoop: [Bool] = []
      for text in ["one", "two", "three"] {
        try await connection.send(.text(text))
        #expect(try await inbound.next() == .text(text))
        onTheLoop.append(executor.loop.inEventLoop)
      }
      return onTheLoop
    }
    #expect(onTheLoop == [true, true, true])
    #expect(!executor.loop.inEventLoop)
    await connection.close(.normalClosure, reason: "")
    await sandbox.stop()
  }

  /// 1 MiB each way: sent in 16 KiB fragments, echoed as one frame, reassembled; text split on character boundaries.
  @Test func carriesAMebibyteMessageBothWays() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let connection = try await transport.connect(to: echo(sandbox), headers: [:])
    var generator = SplitMix64(seed: 7)
    let binary = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) })
    let text = String(repeating: "ü€𝄞a", count: (1 << 20) / 10)
    try await connection.send(.binary(binary))
    try await connection.send(.text(text))
    var inbound = connection.messages.makeAsyncIterator()
    #expect(try await inbound.next() == .binary(binary))
    #expect(try await inbound.next() == .text(text))
    await connection.close(.normalClosure, reason: "")
    await sandbox.stop()
  }

  @Test func aMessageOverTheLimitIsRefusedBeforeAnythingIsSent() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let small = NIOWebSocketTransport(configuration: .init(maxMessageSize: 1_000, connectTimeout: .seconds(60)))
    let connection = try await small.connect(to: echo(sandbox), headers: [:])
    let error = await #expect(throws: WebSocketError.self) {
      try await connection.send(.binary(Data(count: 1_001)))
    }
    #expect(error?.kind == .messageTooLarge)
    // The connection is still usable.
    try await connection.send(.text("still here"))
    var inbound = connection.messages.makeAsyncIterator()
    #expect(try await inbound.next() == .text("still here"))
    await connection.close(.normalClosure, reason: "")
    await sandbox.stop()
  }

  @Test func aServerMessageOverTheLimitClosesWithMessageTooBig() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let small = NIOWebSocketTransport(
      configuration: .init(maxMessageSize: 64 * 1_024, fragmentSize: 1_024, connectTimeout: .seconds(60)))
    let connection = try await small.connect(to: echo(sandbox), headers: [:])
    try await connection.send(.binary(Data(count: 60 * 1_024)))  // echoed as one frame: fine
    try await connection.send(.text(String(repeating: "x", count: 64 * 1_024)))  // within the limit too
    var inbound = connection.messages.makeAsyncIterator()
    #expect(try await inbound.next()?.byteCount == 60 * 1_024)
    #expect(try await inbound.next()?.byteCount == 64 * 1_024)
    await connection.close(.normalClosure, reason: "")
    await sandbox.stop()
  }

  @Test(arguments: [(4001, "session replaced"), (1001, ""), (1000, "bye")])
  func reportsTheServersCloseCodeAndReason(code: Int, reason: String) async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let connection = try await transport.connect(to: echo(sandbox), headers: [:])
    try await connection.send(.text("close \(code) \(reason)"))
    var received: [WebSocketMessage] = []
    for try await message in connection.messages { received.append(message) }  // ends without throwing
    #expect(received.isEmpty)
    let closure = await connection.closure()
    #expect(
      closure == WebSocketClosure(code: WebSocketCloseCode(rawValue: UInt16(code)), reason: reason, byServer: true))
    let error = await #expect(throws: WebSocketError.self) { try await connection.send(.text("late")) }
    #expect(error?.kind == .closed)
    await sandbox.stop()
  }

  /// The server drops the connection without a close frame, as a server that dies does: the reader's loop throws
  /// `connectionLost` at once (no ping timeout needed) and the closure is 1006.
  @Test func aServerThatVanishesEndsTheStreamWithConnectionLost() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let connection = try await transport.connect(to: echo(sandbox), headers: [:])
    try await connection.send(.text("vanish"))
    let error = await #expect(throws: WebSocketError.self) {
      for try await _ in connection.messages {}
    }
    #expect(error?.kind == .connectionLost)
    #expect(await connection.closure().code == .abnormalClosure)
    await sandbox.stop()
  }

  /// A server that accepts the upgrade and then never answers a close: closing returns after the close timeout, the
  /// connection cut (1006, by this side), rather than waiting for an answer that does not come.
  @Test func closingAServerThatNeverAnswersEndsAfterTheCloseTimeout() async throws {
    let server = try CannedHTTPServer(holdingOpen: true) { head in
      let key =
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
        .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
      let accept = Data(Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)))
        .base64EncodedString()
      return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Accept: \(accept)\r\n\r\n"
    }
    defer { server.stop() }
    // A minute to connect, as the other tests that need not wait: only the close is quick.
    let quick = NIOWebSocketTransport(
      configuration: .init(connectTimeout: .seconds(60), closeTimeout: .milliseconds(50)))
    let connection = try await quick.connect(to: URL(string: "ws://127.0.0.1:\(server.port)/quiet")!, headers: [:])
    await connection.close(.normalClosure, reason: "bye")
    let closure = await connection.closure()
    #expect(closure.code == .abnormalClosure)
    #expect(!closure.byServer)
  }

  @Test func aStoppedServerIsAConnectionFailure() async throws {
    // A port held so that it refuses, not a stopped server's, which another test's server may take meanwhile.
    let port = try RefusingPort()
    defer { withExtendedLifetime(port) {} }
    let url = URL(string: "ws://127.0.0.1:\(port.number)/ws/echo")!
    let error = await #expect(throws: WebSocketError.self) { _ = try await transport.connect(to: url, headers: [:]) }
    #expect(error?.kind == .connectionFailed)
    #expect(error?.urlError?.code == .cannotConnectToHost)
  }

  @Test func aPathThatDoesNotUpgradeIsRejected() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let url = URL(string: "ws://127.0.0.1:\(sandbox.port)/v3/users")!
    // A minute to connect: under ThreadSanitizer, with every suite at once, the default 10 s ran out before the
    // server's refusal came, and the test saw a connection failure instead.
    let patient = NIOWebSocketTransport(configuration: .init(connectTimeout: .seconds(60)))
    let error = await #expect(throws: WebSocketError.self) { _ = try await patient.connect(to: url, headers: [:]) }
    #expect(error?.kind == .upgradeRejected)
    await sandbox.stop()
  }

  @Test func aURLThatIsNotAWebSocketIsRefusedBeforeAnythingIsSent() async throws {
    let error = await #expect(throws: WebSocketError.self) {
      _ = try await transport.connect(to: URL(string: "ftp://127.0.0.1/x")!, headers: [:])
    }
    #expect(error?.kind == .invalidURL)
  }

  @Test func concurrentLargeSendsDoNotInterleaveTheirFragments() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let connection = try await transport.connect(to: echo(sandbox), headers: [:])
    let messages = (0..<8).map { WebSocketMessage.text(String(repeating: Character(String($0)), count: 100_000)) }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for message in messages { group.addTask { try await connection.send(message) } }
      try await group.waitForAll()
    }
    var received: Set<WebSocketMessage> = []
    for try await message in connection.messages {
      received.insert(message)
      if received.count == messages.count { break }
    }
    #expect(received == Set(messages))
    await connection.close(.normalClosure, reason: "")
    await sandbox.stop()
  }

  /// A connection its owner lets go of without closing is cut, not left open: its messages end.
  @Test(.timeLimit(.minutes(3))) func aConnectionReleasedWithoutClosingIsCut() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    var connection: (any WebSocketConnection)? = try await transport.connect(to: echo(sandbox), headers: [:])
    let messages = try #require(connection).messages
    connection = nil
    let error = await #expect(throws: WebSocketError.self) {
      for try await _ in messages {}
    }
    #expect(error?.kind == .closed)
    await sandbox.stop()
  }

  /// 400 messages of 64 KiB (25 MiB) that nobody reads: the connection holds 4 MiB of them and stops reading, and the
  /// reader gets every one, in order, once it reads.
  @Test func aReaderThatLagsHoldsTheConnectionBack() async throws {
    let sandbox = try await Sandbox.start(SandboxConfiguration(logLevel: .warning))
    let opened = try await transport.connect(to: echo(sandbox), headers: [:])
    let connection = try #require(opened as? NIOWebSocketConnection)
    try await connection.send(.text("burst 400 65536"))
    #expect(await poll(for: .seconds(60)) { connection.isHoldingBack })
    #expect(connection.inboundBytes <= NIOWebSocketConnection.inboundBufferBytes + 65_536, "\(connection.inboundBytes)")
    var count = 0
    for try await message in connection.messages {
      #expect(message.byteCount == 65_536)
      count += 1
      if count == 400 { break }
    }
    #expect(count == 400)
    await connection.close(.normalClosure, reason: "")
    await sandbox.stop()
  }
}
