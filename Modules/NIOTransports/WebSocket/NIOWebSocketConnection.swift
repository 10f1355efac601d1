import Foundation
import KeelConcurrency
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Networking
import WSClient

/// Keel's message, not WSClient's of the same name.
typealias Message = Networking.WebSocketMessage

/// One connection of a ``NIOWebSocketTransport``.
///
/// swift-websocket hands a connection to a closure and closes it when the closure returns; this class keeps that
/// closure running in a task of its own, reading inbound messages into ``messages``, until either side closes.
/// Those not read yet are held to ``inboundBufferBytes``: past it the task stops reading until the reader catches up,
/// and the server's writes wait on the network (back-pressure), rather than a slow reader's queue growing without
/// bound.
///
/// The connection lives on one event loop: its channel, its timers and its task, which prefers an executor on that
/// loop (``taskExecutor``), so that a message goes from the channel into ``messages`` in the same turn of the loop
/// that read it, and on to a reader that prefers the same executor without another thread being woken.
final class NIOWebSocketConnection: WebSocketConnection {
  let messages: AsyncThrowingStream<Message, any Error>
  private let configuration: NIOWebSocketConfiguration
  /// What the connection's task shares with it; the task holds this, not the connection, so that a connection its
  /// owner releases without closing is cut (its deinit cancels the task) instead of living on.
  private let life: Lifecycle
  /// One message at a time on the wire: the fragments of two messages must not interleave.
  private let turns = AsyncTurns()
  private let task = Locked<Task<Void, Never>?>(nil)
  /// The loop the channel, its timers and its task run on.
  private let loop: any EventLoop
  /// The connection's task's executor preference, which it offers its reader too.
  private let executor: EventLoopTaskExecutor

  /// The states a connection goes through, each set once, and where its inbound messages go.
  final class Lifecycle: Sendable {
    /// Set when the upgrade is accepted (the writer) or the connection fails before it is.
    let opened = OneShot<Result<WebSocketOutboundWriter, WebSocketError>>()
    /// Set when the connection is over, with how it ended.
    let ended = OneShot<WebSocketClosure>()
    /// Set when this side starts the close handshake.
    let closing = OneShot<Void>()
    /// Feeds ``NIOWebSocketConnection/messages``, holding what the reader has not taken yet.
    let inbound = PacedBuffer<Message>(weight: NIOWebSocketConnection.inboundBufferBytes) { $0.byteCount }

    /// Records how the connection ended and ends the messages, with `error` if it failed; only the first call counts.
    func finish(_ closure: WebSocketClosure, _ error: WebSocketError?) {
      guard ended.fulfill(closure) else { return }
      inbound.finish(throwing: error)
    }
  }

  /// The most bytes of inbound messages held for the reader before the connection stops reading (one message is
  /// always taken, whatever its size).
  static let inboundBufferBytes = 4 << 20

  /// The bytes of inbound messages held for the reader now.
  var inboundBytes: Int { life.inbound.weight }
  /// Whether the connection has stopped reading until its reader takes what it holds.
  var isHoldingBack: Bool { life.inbound.isHoldingBack }

  init(configuration: NIOWebSocketConfiguration, eventLoop: any EventLoop) {
    self.configuration = configuration
    loop = eventLoop
    executor = EventLoopTaskExecutor(eventLoop)
    let life = Lifecycle()
    self.life = life
    messages = AsyncThrowingStream(unfolding: { try await life.inbound.next() })
  }

  /// Connects, and returns once the server accepted the upgrade.
  func open(url: URL, headers: HTTPHeaders, tls: TLSConfiguration?, logger: Logger) async throws {
    let running = Task(executorPreference: executor) { [life, configuration, loop] in
      await Self.run(
        life, url: url, headers: headers, configuration: configuration, tls: tls, eventLoopGroup: loop,
        logger: logger)
    }
    task.withLock { $0 = running }
    let opened = life.opened
    // A timer on the event loop, not a sleeping task: a cancelled `Task.sleep` keeps its task until the deadline
    // would have come, so each connection would hold one for the whole connect timeout.
    let timeout = loop.scheduleTask(in: TimeAmount(configuration.connectTimeout)) {
      [configuration] in
      var failure = WebSocketError(
        .connectionFailed,
        "Cannot open a WebSocket to \(WebSocketError.describe(url)): no answer in \(configuration.connectTimeout).")
      failure.urlError = URLError(.timedOut)
      if opened.fulfill(.failure(failure)) { running.cancel() }
    }
    defer { timeout.cancel() }
    let result = await withTaskCancellationHandler {
      await opened.value()
    } onCancel: {
      if opened.fulfill(.failure(WebSocketError(.closed, "Cancelled while connecting."))) { running.cancel() }
    }
    if Task.isCancelled, case .failure = result { throw CancellationError() }
    _ = try result.get()
  }

  private static func run(
    _ life: Lifecycle, url: URL, headers: HTTPHeaders, configuration: NIOWebSocketConfiguration,
    tls: TLSConfiguration?, eventLoopGroup: any EventLoopGroup, logger: Logger
  ) async {
    let failure = Locked<(any Error)?>(nil)
    let limit = configuration.maxMessageSize
    do {
      guard let host = url.host?.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), !host.isEmpty else {
        throw WebSocketClientError.invalidURL
      }
      let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
      let path = components?.percentEncodedPath ?? ""
      let query = components?.percentEncodedQuery.map { "?\($0)" } ?? ""
      let secure = tls != nil
      let upgrade = WebSocketUpgradeChannel(
        host: host, port: url.port, target: (path.isEmpty ? "/" : path) + query, headers: headers,
        maxFrameSize: limit,
        autoPing: configuration.pingInterval.map { .enabled(timePeriod: $0) } ?? .disabled,
        closeTimeout: configuration.closeTimeout, tls: try tls.map { try NIOSSLContext(configuration: $0) }
      ) { inbound, outbound, _ in
        guard life.opened.fulfill(.success(outbound)) else { return }  // timed out or cancelled meanwhile
        do {
          for try await message in inbound.messages(maxSize: limit) {
            switch message {
            case .text(let text): await life.inbound.push(.text(text))
            case .binary(let buffer): await life.inbound.push(.binary(Data(buffer: buffer)))
            }
          }
        } catch {
          failure.withLock { $0 = WebSocketUpgradeChannel.clientError(error) }
          throw error
        }
      }
      let frame = try await ClientConnection(
        upgrade, address: .hostname(host, port: url.port ?? (secure ? 443 : 80)), eventLoopGroup: eventLoopGroup,
        logger: logger
      ).run()
      let byServer = life.closing.current == nil
      if let frame {
        life.finish(
          WebSocketClosure(code: .init(frame.closeCode), reason: frame.reason ?? "", byServer: byServer), nil)
      } else {
        life.finish(
          WebSocketClosure(code: .abnormalClosure, byServer: true),
          WebSocketError(
            .connectionLost, "The WebSocket to \(WebSocketError.describe(url)) ended without a close frame."))
      }
    } catch {
      let mapped = Self.webSocketError(for: failure.withLock { $0 } ?? error, url: url)
      if life.opened.fulfill(.failure(mapped)) {
        life.finish(WebSocketClosure(code: .abnormalClosure, byServer: true), mapped)
        return
      }
      let code: WebSocketCloseCode =
        mapped.kind == .messageTooLarge
        ? .messageTooBig : mapped.kind == .protocolViolation ? .protocolError : .abnormalClosure
      life.finish(WebSocketClosure(code: code, byServer: life.closing.current == nil), mapped)
    }
  }

  func send(_ message: Message) async throws {
    guard message.byteCount <= configuration.maxMessageSize else {
      throw WebSocketError.tooLargeToSend(message, limit: configuration.maxMessageSize)
    }
    guard case .success(let writer) = life.opened.current, life.ended.current == nil, life.closing.current == nil
    else {
      throw WebSocketError.closedForSending
    }
    let size = max(1, configuration.fragmentSize)
    do {
      try await turns.run {
        switch message {
        case .text(let text) where text.utf8.count <= size:
          try await writer.write(.text(text))
        case .binary(let data) where data.count <= size:
          try await writer.write(.binary(ByteBuffer(data: data)))
        case .text(let text):
          try await writer.withTextMessageWriter { write in
            for piece in Self.fragments(of: text, size: size) { try await write(piece) }
          }
        case .binary(let data):
          try await writer.withBinaryMessageWriter { write in
            for start in stride(from: 0, to: data.count, by: size) {
              try await write(
                ByteBuffer(data: data[(data.startIndex + start)..<min(data.endIndex, data.startIndex + start + size)]))
            }
          }
        }
      }
    } catch {
      throw WebSocketError.sendFailed(error)
    }
  }

  func close(_ code: WebSocketCloseCode, reason: String) async {
    // Whoever closes reads no more: the messages not read yet are dropped, so that the connection reads the server's
    // close frame rather than wait for room.
    life.inbound.cancel()
    if life.closing.fulfill(()), life.ended.current == nil, case .success(let writer) = life.opened.current {
      let sent = code.isSendable ? code : .normalClosure
      try? await writer.close(
        WebSocketErrorCode(codeNumber: Int(sent.rawValue)), reason: reason.isEmpty ? nil : Self.truncated(reason))
    }
    // The server answers with its close frame and the connection ends. One that never answers is cut after the close
    // timeout: swift-websocket's own timer starts only once the reading closure returns, which waits for that answer.
    let cut = loop.scheduleTask(in: TimeAmount(configuration.closeTimeout)) { [task] in
      task.withLock { $0?.cancel() }
    }
    _ = await closure()
    cut.cancel()
  }

  func closure() async -> WebSocketClosure { await life.ended.value() }

  var taskExecutor: (any TaskExecutor)? { executor }

  deinit {
    // A connection nobody closed is cut when it is released, not left open.
    task.withLock { $0?.cancel() }
  }

  /// `text`'s UTF-8 in pieces of at most `size` bytes, each ending on a character boundary.
  static func fragments(of text: String, size: Int) -> [String] {
    let bytes = Array(text.utf8)
    var pieces: [String] = []
    var start = 0
    while start < bytes.count {
      var end = min(bytes.count, start + max(4, size))
      // Back off continuation bytes (10xxxxxx), so that no scalar is split between two frames.
      while end < bytes.count, end > start + 1, bytes[end] & 0xC0 == 0x80 { end -= 1 }
      pieces.append(String(decoding: bytes[start..<end], as: UTF8.self))
      start = end
    }
    return pieces
  }

  /// A close reason fits in a control frame: at most 123 bytes of UTF-8, cut on a character boundary.
  static func truncated(_ reason: String) -> String {
    fragments(of: reason, size: 123).first ?? ""
  }

  static func webSocketError(for error: any Error, url: URL) -> WebSocketError {
    if let error = error as? WebSocketError { return error }
    let target = WebSocketError.describe(url)
    var failure: WebSocketError
    switch error {
    case let error as WebSocketClientError where error == .webSocketUpgradeFailed:
      failure = WebSocketError(.upgradeRejected, "The server at \(target) did not accept the WebSocket upgrade.")
    case let error as WebSocketClientError where error == .invalidURL:
      failure = WebSocketError(.invalidURL, "Cannot open a WebSocket to \(target): the URL is not valid.")
    case let error as WebSocketClientError where error == .serverSentMessageTooLarge:
      failure = WebSocketError(.messageTooLarge, "The server at \(target) sent a message over the size limit.")
    case is WebSocketClientError:
      failure = WebSocketError(.protocolViolation, "The server at \(target) broke the WebSocket protocol: \(error).")
    case is CancellationError:
      failure = WebSocketError(.closed, "The WebSocket to \(target) was cancelled.")
    default:
      let urlError = TransportErrorMapping.urlError(for: error, url: url)
      failure = WebSocketError(
        .connectionFailed, "Cannot reach the WebSocket at \(target): \(urlError.code.rawValue) (\(error)).")
      failure.urlError = urlError
    }
    failure.underlying = error
    return failure
  }
}

extension WebSocketCloseCode {
  /// NIO's close code as a number.
  init(_ code: WebSocketErrorCode) {
    let number: Int =
      switch code {
      case .normalClosure: 1000
      case .goingAway: 1001
      case .protocolError: 1002
      case .unacceptableData: 1003
      case .dataInconsistentWithMessage: 1007
      case .policyViolation: 1008
      case .messageTooLarge: 1009
      case .missingExtension: 1010
      case .unexpectedServerError: 1011
      case .unknown(let value): Int(value)
      }
    self.init(rawValue: UInt16(clamping: number))
  }
}
