import Foundation

/// A pending element of a ``DurableQueue``, with its delivery state.
public struct QueuedItem<Element: Sendable>: Sendable, Identifiable {
  /// The element's id: unique for the life of the database file and increasing in enqueue order, never reused.
  public let id: Int64
  /// The element, as it was enqueued.
  public let element: Element
  /// How many times it was released after a failed delivery.
  public let attempts: Int
  /// When it was enqueued, by the queue's clock.
  public let enqueuedAt: Date
  /// The time before which ``DurableQueue/peek(limit:now:)`` does not return it; `nil` until it is first released.
  public let notBefore: Date?

  /// An item; the queue makes these, tests and fakes may too.
  public init(id: Int64, element: Element, attempts: Int, enqueuedAt: Date, notBefore: Date?) {
    self.id = id
    self.element = element
    self.attempts = attempts
    self.enqueuedAt = enqueuedAt
    self.notBefore = notBefore
  }
}

extension QueuedItem: Equatable where Element: Equatable {}
