import Foundation

/// An element taken out of delivery for good, with the reason: a poison event the server will never accept, or a
/// stored payload that no longer decodes.
public struct DeadLetter<Element: Sendable>: Sendable, Identifiable {
  /// The id it had in the queue.
  public let id: Int64
  /// The element, or `nil` when its stored payload does not decode as `Element` (see ``payload``).
  public let element: Element?
  /// The stored JSON, kept as is so that nothing is lost even when it no longer decodes.
  public let payload: Data
  /// Why it was dead-lettered, as given to ``DurableQueue/deadLetter(_:reason:)`` or written by the queue.
  public let reason: String
  /// How many times it had been released before.
  public let attempts: Int
  /// When it was enqueued.
  public let enqueuedAt: Date
  /// When it was dead-lettered.
  public let deadLetteredAt: Date

  /// A dead letter; the queue makes these, tests and fakes may too.
  public init(
    id: Int64, element: Element?, payload: Data, reason: String, attempts: Int, enqueuedAt: Date,
    deadLetteredAt: Date
  ) {
    self.id = id
    self.element = element
    self.payload = payload
    self.reason = reason
    self.attempts = attempts
    self.enqueuedAt = enqueuedAt
    self.deadLetteredAt = deadLetteredAt
  }
}

extension DeadLetter: Equatable where Element: Equatable {}
