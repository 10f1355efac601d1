@_exported import KeelErrors

/// Why an ``EventTracker`` refused an event or could not start (REQUIREMENTS E2).
public struct EventTrackerError: Error, Sendable, CustomStringConvertible {
  /// What went wrong; more kinds may be added.
  public typealias Kind = ErrorKind<EventTrackerError>

  /// What went wrong.
  public let kind: Kind
  /// A readable account of it.
  public let description: String
  /// The error underneath, such as the queue's `PersistenceError`.
  public var underlying: (any Error)?

  /// An error of `kind`.
  public init(_ kind: Kind, _ description: String, underlying: (any Error)? = nil) {
    self.kind = kind
    self.description = description
    self.underlying = underlying
  }
}

extension ErrorKind where Owner == EventTrackerError {
  /// The event broke a rule (empty or long name, properties too large or not JSON); nothing was stored.
  public static var invalidEvent: Self { Self("invalidEvent") }
  /// A configuration value is out of range.
  public static var invalidConfiguration: Self { Self("invalidConfiguration") }
  /// The event could not be stored (disk full, permission, a damaged file); ``EventTrackerError/underlying`` says why.
  public static var storage: Self { Self("storage") }
  /// The queue is full and its policy rejects new events; nothing was stored.
  public static var queueFull: Self { Self("queueFull") }
  /// The tracker was shut down.
  public static var shutDown: Self { Self("shutDown") }
}
