import Foundation
import KeelJSON
import Networking

/// A batch upload (REQUIREMENTS E1, E13): `POST /v1/events/batch` with the application's `Api-Token` (Keel's
/// ingestion API, SandboxAPI §3), or `POST /v1/batch` with the token as the HTTP Basic user name (the Segment HTTP
/// Tracking API, SandboxAPI §3.1), as ``format`` says.
///
/// The batch body is assembled from events encoded one by one (``encode(_:format:)``), so that the uploader can keep
/// a batch under the server's byte limit without encoding it twice.
public struct EventsRouter: Endpoint {
  /// Where the ingestion API is.
  public let baseURL: URL
  /// The token sent in the `Api-Token` header.
  public let apiToken: String
  /// The batch's JSON body.
  public let batch: Data
  /// How long the upload may take.
  public let timeout: Duration?
  /// Which API it speaks.
  public let format: EventWireFormat

  /// An upload of `batch` (made by ``batchBody(_:sentAt:format:)``) in `format`, within `timeout` if one is given.
  public init(
    baseURL: URL, apiToken: String, batch: Data, timeout: Duration? = nil, format: EventWireFormat = .keel
  ) {
    self.baseURL = baseURL
    self.apiToken = apiToken
    self.batch = batch
    self.timeout = timeout
    self.format = format
  }

  /// `/v1/events/batch`, or `/v1/batch` for Segment's API.
  public var path: EndpointPath { EndpointPath(format.path) }
  /// `POST`.
  public var method: HTTPMethod { .post }
  /// The `Api-Token` header that names the tenant, or the write key as HTTP Basic credentials (no password).
  public var headers: [String: String] {
    switch format {
    case .keel: ["Api-Token": apiToken]
    case .segment: ["Authorization": "Basic " + Data("\(apiToken):".utf8).base64EncodedString()]
    }
  }
  /// The batch, as JSON.
  public var body: HTTPBody { .data(batch, contentType: "application/json") }

  /// One event as `format` wants it.
  ///
  /// - Keel's API: `eventId`, `name`, `timestamp` in milliseconds, `properties`; and `type` (but for a track),
  ///   `anonymousId`, `userId`, `traits` and `context` when the event has them.
  /// - Segment's: `type`, `messageId` (the event id), `anonymousId`, `userId`, `timestamp` in ISO 8601 with
  ///   milliseconds, `context`; `event` and `properties` for a track, `name` and `properties` for a screen, `traits`
  ///   for an identification.
  public static func encode(_ event: AnalyticsEvent, format: EventWireFormat = .keel) throws -> Data {
    var fields: [String: JSONValue] = [:]
    fields["anonymousId"] = event.anonymousId.map(JSONValue.string)
    fields["userId"] = event.userId.map(JSONValue.string)
    if !event.context.isEmpty { fields["context"] = .object(event.context) }
    switch format {
    case .keel:
      fields["eventId"] = .string(event.eventId.uuidString.lowercased())
      fields["name"] = .string(event.name)
      fields["timestamp"] = .number((event.timestamp.timeIntervalSince1970 * 1_000).rounded())
      fields["properties"] = .object(event.properties)
      if event.kind != .track { fields["type"] = .string(event.kind.rawValue) }
      if !event.traits.isEmpty { fields["traits"] = .object(event.traits) }
    case .segment:
      fields["type"] = .string(event.kind.rawValue)
      fields["messageId"] = .string(event.eventId.uuidString.lowercased())
      fields["timestamp"] = .string(iso8601(event.timestamp))
      switch event.kind {
      case .track:
        fields["event"] = .string(event.name)
        fields["properties"] = .object(event.properties)
      case .screen:
        fields["name"] = .string(event.name)
        fields["properties"] = .object(event.properties)
      case .identify:
        fields["traits"] = .object(event.traits)
      }
    }
    return try encoder.encode(fields)
  }

  /// The body of a batch: `{"sentAt": <ms>, "events": [<encoded events>]}` for Keel's API, `{"batch": [<encoded
  /// events>], "sentAt": "<ISO 8601>"}` for Segment's.
  public static func batchBody(_ encodedEvents: [Data], sentAt: Date, format: EventWireFormat = .keel) -> Data {
    var body: Data
    switch format {
    case .keel: body = Data("{\"sentAt\":\(Int64((sentAt.timeIntervalSince1970 * 1_000).rounded())),\"events\":[".utf8)
    case .segment: body = Data("{\"sentAt\":\"\(iso8601(sentAt))\",\"batch\":[".utf8)
    }
    for (index, event) in encodedEvents.enumerated() {
      if index > 0 { body.append(UInt8(ascii: ",")) }
      body.append(event)
    }
    body.append(contentsOf: Array("]}".utf8))
    return body
  }

  /// What a batch body adds around its events, at most: the envelope and the commas.
  static func envelopeBytes(events count: Int) -> Int { 64 + count }

  /// `date` in ISO 8601, in UTC, with milliseconds: `2026-11-26T06:43:23.123Z`.
  static func iso8601(_ date: Date) -> String {
    date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
  }

  private static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()
}

extension EventsRouter {
  /// What a successful batch upload acknowledged.
  struct Receipt: Decodable {
    let accepted: Int
    let duplicates: Int

    init(accepted: Int, duplicates: Int) {
      self.accepted = accepted
      self.duplicates = duplicates
    }

    /// The receipt in `response` to an upload of `events` events: Keel's API counts them in its body; Segment's API
    /// answers no count, so any 2xx but an HTML page (a captive portal's) acknowledges them all.
    init(of response: RawResponse, events: Int, format: EventWireFormat) throws {
      switch format {
      case .keel:
        self = try JSONDecoder().decode(Receipt.self, from: response.body)
      case .segment:
        let contentType = response.headers.first { $0.key.lowercased() == "content-type" }?.value ?? ""
        guard !contentType.lowercased().contains("html") else {
          throw DecodingError.dataCorrupted(
            .init(codingPath: [], debugDescription: "An HTML page is no acknowledgement of events"))
        }
        self.init(accepted: events, duplicates: 0)
      }
    }
  }
}

extension ServerErrorDecoder where Self == JSONServerErrorDecoder {
  /// The Segment HTTP Tracking API's errors, as its libraries read them: `{"code":"…","message":"…"}`.
  public static var segment: JSONServerErrorDecoder { JSONServerErrorDecoder(codeField: "code") }
}
