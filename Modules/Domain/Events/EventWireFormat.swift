/// The API an ``EventTracker`` delivers to (REQUIREMENTS E1, E13).
public enum EventWireFormat: Sendable, Hashable, CustomStringConvertible {
  /// Keel's ingestion API (SandboxAPI §3): `POST /v1/events/batch`, the token in `Api-Token`, each event with its
  /// `eventId`, `name`, `timestamp` in milliseconds and `properties`, and a receipt counting what was accepted.
  case keel
  /// The Segment HTTP Tracking API: `POST /v1/batch`, the token as the write key (the HTTP Basic user name, no
  /// password), each event a Segment message (`type`, `messageId` = the event id, `anonymousId`, `userId`, `event` or
  /// `name`, `properties` or `traits`, `context`, `timestamp` in ISO 8601) and the batch's `sentAt`. Any 2xx that is
  /// not an HTML page acknowledges the batch: the API answers no per-event receipt.
  case segment

  /// The path of a batch upload below the base URL.
  var path: [String] {
    switch self {
    case .keel: ["v1", "events", "batch"]
    case .segment: ["v1", "batch"]
    }
  }

  /// The most bytes one upload may take: 1 MiB for Keel's API, 500 KB for Segment's.
  public var maxBatchBytes: Int {
    switch self {
    case .keel: 1_048_576
    case .segment: 500_000
    }
  }

  /// `keel` or `segment`.
  public var description: String {
    switch self {
    case .keel: "keel"
    case .segment: "segment"
    }
  }
}
