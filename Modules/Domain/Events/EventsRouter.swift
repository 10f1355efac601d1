import Foundation
import Networking

/// The event ingestion API (SandboxAPI §3, REQUIREMENTS E1): `POST /v1/events/batch` with the application's
/// `Api-Token`.
///
/// The batch body is assembled from events encoded one by one (``encode(_:)``), so that the uploader can keep a batch
/// under the server's byte limit without encoding it twice.
public struct EventsRouter: Endpoint {
  /// Where the ingestion API is.
  public let baseURL: URL
  /// The token sent in the `Api-Token` header.
  public let apiToken: String
  /// The batch's JSON body.
  public let batch: Data
  /// How long the upload may take.
  public let timeout: Duration?

  /// `POST /v1/events/batch` with `batch` as its body, within `timeout` if one is given.
  public init(baseURL: URL, apiToken: String, batch: Data, timeout: Duration? = nil) {
    self.baseURL = baseURL
    self.apiToken = apiToken
    self.batch = batch
    self.timeout = timeout
  }

  /// `/v1/events/batch`.
  public var path: EndpointPath { ["v1", "events", "batch"] }
  /// `POST`.
  public var method: HTTPMethod { .post }
  /// The `Api-Token` header that names the tenant.
  public var headers: [String: String] { ["Api-Token": apiToken] }
  /// The batch, as JSON.
  public var body: HTTPBody { .data(batch, contentType: "application/json") }

  /// One event as the API wants it: `eventId`, `name`, `timestamp` in milliseconds, `properties`.
  public static func encode(_ event: AnalyticsEvent) throws -> Data {
    let wire = WireEvent(
      eventId: event.eventId.uuidString.lowercased(), name: event.name,
      timestamp: Int64((event.timestamp.timeIntervalSince1970 * 1_000).rounded()), properties: event.properties)
    return try encoder.encode(wire)
  }

  /// The body of a batch: `{"sentAt": <ms>, "events": [<encoded events>]}`.
  public static func batchBody(_ encodedEvents: [Data], sentAt: Date) -> Data {
    var body = Data("{\"sentAt\":\(Int64((sentAt.timeIntervalSince1970 * 1_000).rounded())),\"events\":[".utf8)
    for (index, event) in encodedEvents.enumerated() {
      if index > 0 { body.append(UInt8(ascii: ",")) }
      body.append(event)
    }
    body.append(contentsOf: Array("]}".utf8))
    return body
  }

  /// What a batch body adds around its events, at most: the envelope and the commas.
  static func envelopeBytes(events count: Int) -> Int { 48 + count }

  private static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()

  private struct WireEvent: Encodable {
    let eventId: String
    let name: String
    let timestamp: Int64
    let properties: [String: JSONValue]
  }
}

extension EventsRouter {
  /// The body of a successful batch upload.
  struct Receipt: Decodable {
    let accepted: Int
    let duplicates: Int
  }
}
