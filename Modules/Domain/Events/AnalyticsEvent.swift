import Foundation

/// Something that happened in the app, to be delivered to the analytics backend (REQUIREMENTS E2, E9).
///
/// Its ``eventId`` is set when it is created and travels with it, so a redelivery after a lost acknowledgement is
/// recognised by the server's deduplication and counted once.
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
/// ```
public struct AnalyticsEvent: Sendable, Hashable, Codable {
  /// The idempotency key: unique per event, kept across retries and restarts.
  public let eventId: UUID
  /// What happened, such as `screen_view`.
  public var name: String
  /// When it happened.
  public var timestamp: Date
  /// What describes it.
  public var properties: [String: JSONValue]

  /// An event that happened at `timestamp` (by default, now), with a new ``eventId``.
  public init(name: String, properties: [String: JSONValue] = [:], timestamp: Date = Date(), eventId: UUID = UUID()) {
    self.eventId = eventId
    self.name = name
    self.timestamp = timestamp
    self.properties = properties
  }
}
