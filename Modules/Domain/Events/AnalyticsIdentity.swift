import Foundation
import KeelJSON
import Persistence

/// Who the tracked events are about, and whether they may be collected at all (REQUIREMENTS E10, E11): kept in the
/// tracker's key-value store, so that the anonymous id, the identified user and the consent survive restarts.
struct AnalyticsIdentity: Codable, Sendable, Hashable {
  /// The key it is stored under.
  static let key = "keel.events.identity"

  /// This installation's id until ``EventTracker/reset()``: a lowercase UUID.
  var anonymousId: String
  /// The identified user, if any.
  var userId: String?
  /// What ``EventTracker/identify(userId:traits:)`` said of that user.
  var traits: [String: JSONValue]
  /// Whether the user withdrew consent (``EventTracker/optOut(purgingQueued:)``).
  var optedOut: Bool

  /// A new installation's identity: a fresh anonymous id, nobody identified, collecting.
  static func fresh() -> AnalyticsIdentity {
    AnalyticsIdentity(anonymousId: UUID().uuidString.lowercased(), userId: nil, traits: [:], optedOut: false)
  }

  /// The identity in `store`, or a fresh one stored there for the next run. One that cannot be read is replaced (and
  /// logged by the caller): a new anonymous id costs less than a tracker that cannot start.
  static func load(from store: any KeyValueStore) throws -> (identity: AnalyticsIdentity, unreadable: (any Error)?) {
    var unreadable: (any Error)?
    do {
      if let stored = try store.value(AnalyticsIdentity.self, forKey: key) { return (stored, nil) }
    } catch {
      unreadable = error
    }
    let identity = fresh()
    try store.set(identity, forKey: key)
    return (identity, unreadable)
  }
}

/// The session the built-in enrichment names in `context.sessionId`: the time it started in milliseconds since 1970,
/// as Amplitude and Segment's session plugins count, renewed after ``EventTrackerConfiguration/sessionTimeout``
/// without events. A new process starts a new session.
struct AnalyticsSession: Sendable {
  private(set) var id: Int64 = 0
  private var lastEvent: Date?

  /// The session of an event at `date`: the current one, or a new one when the last event is older than `timeout`
  /// (or in the future: the clock moved back).
  mutating func id(at date: Date, timeout: Duration) -> Int64 {
    defer { lastEvent = date }
    if let lastEvent, date >= lastEvent, date.timeIntervalSince(lastEvent) < DeliveryBackoff.seconds(timeout) {
      return id
    }
    id = Int64((date.timeIntervalSince1970 * 1_000).rounded(.down))
    return id
  }
}
