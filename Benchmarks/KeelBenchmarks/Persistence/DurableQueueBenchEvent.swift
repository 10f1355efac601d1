import Foundation

/// A realistic analytics event: an idempotency key, a name, a timestamp and a few properties (about 250 bytes of
/// JSON).
struct DurableQueueBenchEvent: Codable, Sendable {
  let id: UUID
  let name: String
  let timestamp: Date
  let properties: [String: String]

  /// Event number `index`.
  static func make(_ index: Int) -> DurableQueueBenchEvent {
    DurableQueueBenchEvent(
      id: UUID(), name: "screen_viewed", timestamp: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)),
      properties: [
        "screen": "ProfileViewController", "previous": "ChannelListViewController",
        "session": "9f1c2a4e-\(index)", "appVersion": "4.21.0",
      ])
  }
}
