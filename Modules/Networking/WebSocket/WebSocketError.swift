import Foundation
@_exported import KeelErrors

/// Why a WebSocket could not be opened, or failed, or refused a message.
///
/// A struct with a ``kind`` to compare, like ``NetworkError``, so that kinds can be added without breaking anyone's
/// `switch`.
public struct WebSocketError: Error, Sendable, CustomStringConvertible {
  /// The kind of failure.
  public typealias Kind = ErrorKind<WebSocketError>

  /// The kind of failure.
  public let kind: Kind
  /// A complete sentence describing the failure.
  public let description: String
  /// The transport's error, for `Kind.connectionFailed`.
  public var urlError: URLError?
  /// The error that caused this one, if any.
  public var underlying: (any Error)?

  /// An error of `kind` described by `description`, a complete sentence.
  public init(_ kind: Kind, _ description: String) {
    self.kind = kind
    self.description = description
  }
}

extension ErrorKind where Owner == WebSocketError {
  /// The URL is not a `ws`, `wss`, `http` or `https` URL with a host; nothing was sent.
  public static var invalidURL: Self { Self("invalidURL") }
  /// The server could not be reached: ``WebSocketError/urlError`` says why, in URLSession's codes.
  public static var connectionFailed: Self { Self("connectionFailed") }
  /// The server answered the upgrade request but did not switch protocols.
  public static var upgradeRejected: Self { Self("upgradeRejected") }
  /// The connection ended without a close handshake: the server vanished, or stopped answering pings.
  public static var connectionLost: Self { Self("connectionLost") }
  /// A message over the size limit: one the server sent (the connection is closed with 1009), or one to send
  /// (nothing was sent).
  public static var messageTooLarge: Self { Self("messageTooLarge") }
  /// The server broke the WebSocket protocol (a malformed frame, text that is not UTF-8).
  public static var protocolViolation: Self { Self("protocolViolation") }
  /// The connection is closing or closed; nothing more can be sent.
  public static var closed: Self { Self("closed") }
  /// This platform's implementation has no WebSocket (URLSession on Linux).
  public static var unsupported: Self { Self("unsupported") }
}

extension WebSocketError {
  /// The scheme of `url`, lowercased, when it can carry a WebSocket (`ws`, `wss`, `http`, `https`, with a host);
  /// otherwise the `Kind.invalidURL` error every transport throws before anything is sent.
  package static func webSocketScheme(of url: URL) throws -> String {
    guard let scheme = url.scheme?.lowercased(), ["ws", "wss", "http", "https"].contains(scheme), url.host != nil
    else {
      throw WebSocketError(.invalidURL, "Cannot open a WebSocket to \(url.absoluteString): not a ws or wss URL.")
    }
    return scheme
  }

  /// `url` as messages show it: without its query, user and password, which may carry a token.
  package static func describe(_ url: URL) -> String {
    var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
    components?.query = nil
    components?.user = nil
    components?.password = nil
    return components?.string ?? url.absoluteString
  }

  /// The `Kind.closed` error of a send that the connection's end interrupted.
  package static func sendFailed(_ error: any Error) -> WebSocketError {
    var failure = WebSocketError(.closed, "The WebSocket closed before the message was sent.")
    failure.underlying = error
    return failure
  }

  /// The `Kind.messageTooLarge` error of a message over `limit`, refused before anything is sent.
  package static func tooLargeToSend(_ message: WebSocketMessage, limit: Int) -> WebSocketError {
    WebSocketError(.messageTooLarge, "Cannot send a message of \(message.byteCount) bytes: the limit is \(limit).")
  }

  /// The `Kind.closed` error of a send after the close began.
  package static let closedForSending = WebSocketError(.closed, "Cannot send on a WebSocket that is closing or closed.")
}
