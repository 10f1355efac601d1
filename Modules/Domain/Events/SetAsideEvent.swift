import Foundation
import Persistence

/// An event taken out of delivery for good because the server refused it on its own (REQUIREMENTS E12): kept with
/// the server's reason until the app or `keel events requeue` puts it back, or newer ones push it out of the
/// dead-letter table.
public struct SetAsideEvent: Sendable, Hashable, Identifiable {
  /// Its id in the dead-letter table, for ``EventTracker/requeueDeadLetters(_:)``.
  public let id: Int64
  /// The event, or `nil` when its stored form no longer decodes.
  public let event: AnalyticsEvent?
  /// Why it was set aside: the server's status and message, such as `HTTP 400: event 0 needs a name`.
  public let reason: String
  /// When it was set aside.
  public let setAsideAt: Date

  /// An event set aside with `reason`.
  public init(id: Int64, event: AnalyticsEvent?, reason: String, setAsideAt: Date) {
    self.id = id
    self.event = event
    self.reason = reason
    self.setAsideAt = setAsideAt
  }

  init(_ letter: DeadLetter<AnalyticsEvent>) {
    self.init(id: letter.id, event: letter.element, reason: letter.reason, setAsideAt: letter.deadLetteredAt)
  }
}

/// What ``EventTracker/flush()`` did: delivered, set aside, and what still waits.
public struct FlushReport: Sendable, Hashable {
  /// Events the server acknowledged during the flush.
  public var delivered: Int
  /// How many events the server refused on their own during the flush, now dead letters.
  public var setAsideCount: Int
  /// Those events with the server's reasons, the newest 100 at most.
  public var setAside: [SetAsideEvent]
  /// Of ``setAsideCount``, the events that found the dead letters at their capacity
  /// (``EventTrackerConfiguration/deadLetterCapacity``): refused, and not kept. Anything but 0 is data lost.
  public var notKeptCount: Int
  /// Where delivery stands after the flush: what still waits, and the last failure if it stopped on one.
  public var status: DeliveryStatus

  /// A report with these values.
  public init(
    delivered: Int, setAsideCount: Int, setAside: [SetAsideEvent], status: DeliveryStatus, notKeptCount: Int = 0
  ) {
    self.delivered = delivered
    self.setAsideCount = setAsideCount
    self.setAside = setAside
    self.notKeptCount = notKeptCount
    self.status = status
  }

  /// Whether everything went: nothing pending, nothing set aside.
  public var isComplete: Bool { status.pending == 0 && setAsideCount == 0 }
}

/// The events this tracker set aside, newest last, at most ``capacity``, each with its running number: what a flush
/// reports.
struct SetAsideLog {
  static let capacity = 100
  /// How many were ever set aside by this tracker.
  private(set) var total = 0
  /// Of those, how many found the dead letters full and were not kept.
  private(set) var notKept = 0
  private var newest: [SetAsideEvent] = []

  mutating func append(_ event: SetAsideEvent, kept: Bool) {
    total += 1
    if !kept { notKept += 1 }
    newest.append(event)
    if newest.count > Self.capacity { newest.removeFirst(newest.count - Self.capacity) }
  }

  /// Those set aside since the total was `mark`, as many as are still kept.
  func since(_ mark: Int) -> [SetAsideEvent] {
    Array(newest.suffix(Swift.max(0, Swift.min(total - mark, newest.count))))
  }
}
