import Foundation
@_exported import KeelErrors
import Networking

/// Why a Socket.IO call failed, or a packet could not be read.
///
/// A struct with a ``kind`` to compare, like `NetworkError`, so that kinds can be added without breaking anyone's
/// `switch`.
public struct SocketIOError: Error, Sendable, CustomStringConvertible {
  /// The kind of failure.
  public typealias Kind = ErrorKind<SocketIOError>

  /// The kind of failure.
  public let kind: Kind
  /// A complete sentence describing the failure.
  public let description: String

  /// An error of `kind` described by `description`, a complete sentence.
  public init(_ kind: Kind, _ description: String) {
    self.kind = kind
    self.description = description
  }
}

extension ErrorKind where Owner == SocketIOError {
  /// The configuration cannot work: a URL that is not `http`, `https`, `ws` or `wss` with a host, or a namespace
  /// that does not start with `/`. Nothing was sent.
  public static var invalidConfiguration: Self { Self("invalidConfiguration") }
  /// An event name that is empty or reserved (`connect`, `connect_error`, `disconnect`, `disconnecting`,
  /// `newListener`, `removeListener`), or an argument with no JSON form (an infinity, NaN). Nothing was sent.
  public static var invalidArguments: Self { Self("invalidArguments") }
  /// A packet over the server's `maxPayload`. Nothing was sent.
  public static var payloadTooLarge: Self { Self("payloadTooLarge") }
  /// The client is not connected: emitting while disconnected fails at once (Documentation/Decisions/0012).
  public static var notConnected: Self { Self("notConnected") }
  /// The connection ended before the acknowledgement came; the server may or may not have handled the event.
  public static var disconnected: Self { Self("disconnected") }
  /// No acknowledgement within the timeout; the server may or may not have handled the event.
  public static var ackTimeout: Self { Self("ackTimeout") }
  /// More acknowledgements are awaited than the configuration allows; nothing was sent.
  public static var tooManyPendingAcks: Self { Self("tooManyPendingAcks") }
  /// The server broke Engine.IO or Socket.IO: a packet that cannot be read.
  public static var invalidPacket: Self { Self("invalidPacket") }
}
