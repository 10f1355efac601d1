import Foundation
import KeelConcurrency

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A ``WebSocketTransport`` on `URLSessionWebSocketTask`: the WebSocket for Apple platforms, where it is the system's
/// own and links nothing more.
///
/// Unusable on Linux: FoundationNetworking compiles `URLSessionWebSocketTask`, but runs it on libcurl, and Debian 12's
/// libcurl 7.88 has no WebSocket support (curl made it official in 8.11), so every connect fails there with
/// `WebSocketError.Kind.unsupported`. On Linux and servers use `NIOWebSocketTransport` from the NIOTransports
/// product.
///
/// URLSession answers pings itself; it sends none, so a dead connection is noticed when a send fails or the server's
/// own heartbeat (Socket.IO's) is missed.
public struct URLSessionWebSocketTransport: WebSocketTransport {
  /// The configuration each connection's session is made with.
  public let configuration: URLSessionConfiguration
  /// The largest message either side may send. Default 16 MiB (URLSession's own default is 1 MiB).
  public let maxMessageSize: Int

  /// A transport whose connections use `configuration` (ephemeral by default) and accept messages of up to
  /// `maxMessageSize` bytes.
  public init(configuration: URLSessionConfiguration = .ephemeral, maxMessageSize: Int = 16 << 20) {
    self.configuration = configuration
    self.maxMessageSize = maxMessageSize
  }

  /// Opens a connection; see ``WebSocketTransport/connect(to:headers:)``.
  public func connect(to url: URL, headers: [String: String]) async throws -> any WebSocketConnection {
    _ = try WebSocketError.webSocketScheme(of: url)
    var request = URLRequest(url: url)
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let delegate = WebSocketDelegate()
    let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    let task = session.webSocketTask(with: request)
    task.maximumMessageSize = maxMessageSize
    task.resume()
    let opened = await withTaskCancellationHandler {
      await delegate.opened.value()
    } onCancel: {
      task.cancel()
    }
    if let failure = opened {
      session.invalidateAndCancel()
      if Task.isCancelled { throw CancellationError() }
      throw Self.connectFailure(failure, url: url)
    }
    return URLSessionWebSocketConnection(task: task, session: session, delegate: delegate, limit: maxMessageSize)
  }

  private static func connectFailure(_ error: any Error, url: URL) -> WebSocketError {
    let target = WebSocketError.describe(url)
    var failure: WebSocketError
    if "\(error)".localizedCaseInsensitiveContains("not supported") {
      failure = WebSocketError(
        .unsupported,
        "This platform's URLSession has no WebSocket (libcurl without WebSocket support); use NIOWebSocketTransport.")
    } else if let error = error as? URLError, error.code == .badServerResponse {
      failure = WebSocketError(.upgradeRejected, "The server at \(target) did not accept the WebSocket upgrade.")
    } else {
      failure = WebSocketError(.connectionFailed, "Cannot reach the WebSocket at \(target): \(error).")
      failure.urlError = error as? URLError
    }
    failure.underlying = error
    return failure
  }
}

/// One connection of a ``URLSessionWebSocketTransport``.
final class URLSessionWebSocketConnection: WebSocketConnection {
  let messages: AsyncThrowingStream<WebSocketMessage, any Error>
  private let task: URLSessionWebSocketTask
  private let session: URLSession
  private let delegate: WebSocketDelegate
  private let limit: Int

  init(task: URLSessionWebSocketTask, session: URLSession, delegate: WebSocketDelegate, limit: Int) {
    self.task = task
    self.session = session
    self.delegate = delegate
    self.limit = limit
    let (messages, inbound) = AsyncThrowingStream<WebSocketMessage, any Error>.makeStream()
    self.messages = messages
    // One receive at a time, as URLSession requires; the loop ends when the task does.
    let reader = Task { [task, delegate] in
      while true {
        do {
          switch try await task.receive() {
          case .string(let text): inbound.yield(.text(text))
          case .data(let data): inbound.yield(.binary(data))
          @unknown default: continue
          }
        } catch {
          let closure = await delegate.closed.value()
          if closure.code == .abnormalClosure {
            var failure = WebSocketError(.connectionLost, "The WebSocket ended without a close frame.")
            failure.underlying = error
            inbound.finish(throwing: failure)
          } else {
            inbound.finish()
          }
          return
        }
      }
    }
    inbound.onTermination = { _ in reader.cancel() }
  }

  func send(_ message: WebSocketMessage) async throws {
    guard message.byteCount <= limit else { throw WebSocketError.tooLargeToSend(message, limit: limit) }
    guard delegate.closing.current == nil, delegate.closed.current == nil else {
      throw WebSocketError.closedForSending
    }
    do {
      switch message {
      case .text(let text): try await task.send(.string(text))
      case .binary(let data): try await task.send(.data(data))
      }
    } catch {
      throw WebSocketError.sendFailed(error)
    }
  }

  func close(_ code: WebSocketCloseCode, reason: String) async {
    if delegate.closing.fulfill(()), delegate.closed.current == nil {
      let sent = code.isSendable ? code : .normalClosure
      task.cancel(
        with: URLSessionWebSocketTask.CloseCode(rawValue: Int(sent.rawValue)) ?? .normalClosure,
        reason: Data(reason.utf8.prefix(123)))
    }
    _ = await closure()
    session.finishTasksAndInvalidate()
  }

  func closure() async -> WebSocketClosure { await delegate.closed.value() }

  deinit {
    // A connection nobody closed is cut when it is released, and its session (which holds the delegate) let go.
    session.invalidateAndCancel()
  }
}

/// Turns a WebSocket task's delegate calls into its opening and closing.
///
/// `@unchecked Sendable` (NSObject is not Sendable): its state is three `OneShot`s, each safe to use from any thread.
final class WebSocketDelegate: NSObject, URLSessionWebSocketDelegate,
  @unchecked Sendable  // its state is three OneShots, each safe from any thread
{
  /// `nil` once the server accepted the upgrade, else why the connection failed.
  let opened = OneShot<(any Error)?>()
  /// How the connection ended.
  let closed = OneShot<WebSocketClosure>()
  /// Set when this side starts the close.
  let closing = OneShot<Void>()

  func urlSession(
    _ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?
  ) {
    opened.fulfill(nil)
  }

  func urlSession(
    _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
    didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
  ) {
    closed.fulfill(
      WebSocketClosure(
        code: WebSocketCloseCode(rawValue: UInt16(clamping: closeCode.rawValue)),
        reason: reason.map { String(decoding: $0, as: UTF8.self) } ?? "", byServer: closing.current == nil))
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    opened.fulfill(error ?? URLError(.networkConnectionLost))
    closed.fulfill(WebSocketClosure(code: closing.current == nil ? .abnormalClosure : .normalClosure, byServer: true))
  }
}
