import Foundation

/// Where delivery stands (REQUIREMENTS E8): what waits, what went, what was given up on, and why it stalls if it
/// does.
public struct DeliveryStatus: Sendable, Hashable {
  /// Events on disk waiting for upload.
  public var pending: Int
  /// Events the server acknowledged since the tracker started.
  public var delivered: Int
  /// Of those, events the server said it had already (a redelivery after a lost acknowledgement; E9).
  public var duplicates: Int
  /// Events taken out of delivery for good (the server refused them as malformed or too large) and kept as dead
  /// letters on disk, now: up to ``EventTrackerConfiguration/deadLetterCapacity``.
  public var deadLettered: Int
  /// Events the server refused that found the dead letters full, so were not kept, ever, as kept on disk: data lost,
  /// which a tool should report.
  public var deadLettersDropped: Int
  /// Events dropped to keep the queue within its capacity, ever, as kept on disk.
  public var dropped: Int
  /// The last upload failure, or `nil` once an upload succeeds again.
  public var lastError: String?
  /// The last upload failure as a request's failure (its reason, status, server code), when it was one; `nil` once an
  /// upload succeeds again.
  public var lastFailure: RequestFailure?
  /// Whether the network monitor says the device is online; no upload is tried while it is not (E6).
  public var isOnline: Bool
  /// When the next retry is due after a failure, or `nil` when none is waiting.
  public var nextRetry: Date?
  /// Whether the user opted out of collection (REQUIREMENTS E11).
  public var isOptedOut: Bool
  /// Events not stored because the user had opted out, since the tracker started.
  public var refusedByConsent: Int
  /// Events a plugin dropped on purpose, since the tracker started.
  public var droppedByPlugins: Int

  /// A status with the given counts, for tests and for a tracker's own reports.
  public init(
    pending: Int = 0, delivered: Int = 0, duplicates: Int = 0, deadLettered: Int = 0, dropped: Int = 0,
    lastError: String? = nil, lastFailure: RequestFailure? = nil, isOnline: Bool = true, nextRetry: Date? = nil,
    isOptedOut: Bool = false, refusedByConsent: Int = 0, droppedByPlugins: Int = 0, deadLettersDropped: Int = 0
  ) {
    self.deadLettersDropped = deadLettersDropped
    self.pending = pending
    self.delivered = delivered
    self.duplicates = duplicates
    self.deadLettered = deadLettered
    self.dropped = dropped
    self.lastError = lastError
    self.lastFailure = lastFailure
    self.isOnline = isOnline
    self.nextRetry = nextRetry
    self.isOptedOut = isOptedOut
    self.refusedByConsent = refusedByConsent
    self.droppedByPlugins = droppedByPlugins
  }
}
