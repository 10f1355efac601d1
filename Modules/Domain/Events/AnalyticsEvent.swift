import Foundation
import KeelJSON

/// Something that happened in the app, to be delivered to the analytics backend (REQUIREMENTS E2, E9, E10).
///
/// Its ``eventId`` is set when it is created and travels with it, so a redelivery after a lost acknowledgement is
/// recognised by the server's deduplication and counted once. The app sets what happened (``kind``, ``name``,
/// ``properties``, ``timestamp``); the ``EventTracker`` stamps who it happened to (``anonymousId``, ``userId``) and
/// its plugins add the ``context`` before the event is stored.
///
/// ```swift
/// import Foundation
///
/// let dependencies = Dependencies.live(
///   configuration: KeelConfiguration(
///     backendBaseURL: URL(string: "https://chat.example.com")!,
///     dataDirectory: URL(fileURLWithPath: "myapp-data", isDirectory: true), eventsAPIToken: "your-events-token"))
/// let tracker = try dependencies.events
/// try await tracker.track(AnalyticsEvent(name: "checkout", properties: ["items": 3, "total": 42.5]))
/// try await tracker.track(.screen("Channel list"))
/// ```
public struct AnalyticsEvent: Sendable, Hashable {
  /// What sort of event it is; the Segment specification's `type`.
  public enum Kind: String, Sendable, Hashable, Codable {
    /// Something the user did: ``AnalyticsEvent/name`` is the action, such as `checkout`.
    case track
    /// A screen the user saw: ``AnalyticsEvent/name`` is the screen's name.
    case screen
    /// Who the user is: ``AnalyticsEvent/traits`` describe them; made by ``EventTracker/identify(userId:traits:)``.
    case identify
  }

  /// The idempotency key: unique per event, kept across retries and restarts.
  public let eventId: UUID
  /// Whether it is an action, a screen or an identification.
  public var kind: Kind
  /// What happened, such as `checkout`, or the screen's name; `identify` for an identification.
  public var name: String
  /// When it happened.
  public var timestamp: Date
  /// What describes it.
  public var properties: [String: JSONValue]
  /// The device's anonymous id when it was tracked; the tracker sets it.
  public var anonymousId: String?
  /// The signed-in user's id when it was tracked, if someone was identified; the tracker sets it.
  public var userId: String?
  /// What describes the user, on an identification.
  public var traits: [String: JSONValue]
  /// Where it happened: app, OS, device, locale, time zone, library, session; the tracker's plugins fill it, in the
  /// Segment specification's names (`app.version`, `os.name`, `sessionId`).
  public var context: [String: JSONValue]

  /// An action that happened at `timestamp` (by default, now), with a new ``eventId``.
  public init(name: String, properties: [String: JSONValue] = [:], timestamp: Date = Date(), eventId: UUID = UUID()) {
    self.init(kind: .track, name: name, properties: properties, timestamp: timestamp, eventId: eventId)
  }

  /// An event of any kind; ``anonymousId``, ``userId`` and ``context`` are normally left for the tracker.
  public init(
    kind: Kind, name: String, properties: [String: JSONValue] = [:], traits: [String: JSONValue] = [:],
    timestamp: Date = Date(), eventId: UUID = UUID(), anonymousId: String? = nil, userId: String? = nil,
    context: [String: JSONValue] = [:]
  ) {
    self.eventId = eventId
    self.kind = kind
    self.name = name
    self.timestamp = timestamp
    self.properties = properties
    self.anonymousId = anonymousId
    self.userId = userId
    self.traits = traits
    self.context = context
  }

  /// The screen `name` was shown at `timestamp` (by default, now).
  public static func screen(
    _ name: String, properties: [String: JSONValue] = [:], timestamp: Date = Date()
  ) -> AnalyticsEvent {
    AnalyticsEvent(kind: .screen, name: name, properties: properties, timestamp: timestamp)
  }
}

extension AnalyticsEvent: Codable {
  private enum CodingKeys: String, CodingKey {
    case eventId, kind, name, timestamp, properties, anonymousId, userId, traits, context
  }

  /// Reads an event as the queue stores it; one stored before identity and context existed is a `track` without
  /// them.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    eventId = try container.decode(UUID.self, forKey: .eventId)
    kind = try container.decodeIfPresent(Kind.self, forKey: .kind) ?? .track
    name = try container.decode(String.self, forKey: .name)
    timestamp = try container.decode(Date.self, forKey: .timestamp)
    properties = try container.decodeIfPresent([String: JSONValue].self, forKey: .properties) ?? [:]
    anonymousId = try container.decodeIfPresent(String.self, forKey: .anonymousId)
    userId = try container.decodeIfPresent(String.self, forKey: .userId)
    traits = try container.decodeIfPresent([String: JSONValue].self, forKey: .traits) ?? [:]
    context = try container.decodeIfPresent([String: JSONValue].self, forKey: .context) ?? [:]
  }

  /// Writes the event as the queue stores it, leaving out what it does not have.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(eventId, forKey: .eventId)
    if kind != .track { try container.encode(kind, forKey: .kind) }
    try container.encode(name, forKey: .name)
    try container.encode(timestamp, forKey: .timestamp)
    try container.encode(properties, forKey: .properties)
    try container.encodeIfPresent(anonymousId, forKey: .anonymousId)
    try container.encodeIfPresent(userId, forKey: .userId)
    if !traits.isEmpty { try container.encode(traits, forKey: .traits) }
    if !context.isEmpty { try container.encode(context, forKey: .context) }
  }
}
