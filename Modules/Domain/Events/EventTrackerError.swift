@_exported import KeelErrors

/// Why an ``EventTracker`` refused an event or could not start (REQUIREMENTS E2).
public struct EventTrackerError: Error, Sendable, CustomStringConvertible {
  /// What went wrong; more kinds may be added.
  public struct Kind: ErrorKind {
    /// The event broke a rule (empty or long name, properties too large or not JSON); nothing was stored.
    public static let invalidEvent = Kind("invalidEvent")
    /// A configuration value is out of range.
    public static let invalidConfiguration = Kind("invalidConfiguration")
    /// The event could not be stored (disk full, permission, a damaged file); ``underlying`` says why.
    public static let storage = Kind("storage")
    /// The queue is full and its policy rejects new events; nothing was stored.
    public static let queueFull = Kind("queueFull")
    /// The tracker was shut down.
    public static let shutDown = Kind("shutDown")

    /// The kind's name.
    public let name: String
    private init(_ name: String) { self.name = name }
  }

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
