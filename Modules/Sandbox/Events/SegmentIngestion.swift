import Foundation
import HTTPTypes
import KeelJSON

/// The Segment HTTP Tracking API's batch route (SandboxAPI §3.1, REQUIREMENTS E13): `POST /v1/batch`, checked field
/// by field against Segment's public specification, its messages kept with the tenant's other events and
/// deduplicated by `messageId`.
///
/// The checker is stricter than Segment, which answers 200 and drops a message it cannot use: here every rule a
/// message breaks is a 400 naming the field (`batch[3].event: …`), so that a client learns it in a test.
struct SegmentIngestion: Sendable {
  /// The most bytes a batch may take (Segment: 500 KB).
  static let maxBatchBytes = 500 * 1_024
  /// The most bytes one message may take (Segment: 32 KB).
  static let maxMessageBytes = 32 * 1_024
  /// The most messages in one batch (Segment: 2,500).
  static let maxMessages = 2_500
  /// The message types of the specification.
  static let types: Set<String> = ["identify", "track", "screen", "page", "group", "alias"]

  let events: EventIngestion
  /// The tenant a write key names, or `nil` if the Sandbox does not know it.
  let tenant: @Sendable (String) -> String?

  var routes: [Route] { [Route(.post, "/v1/batch", handler: ingest)] }

  private func ingest(_ request: SandboxRequest) -> SandboxResponse {
    guard request.body.count <= Self.maxBatchBytes else {
      return Self.error(.badRequest, "too_large", "A batch takes at most \(Self.maxBatchBytes) bytes.")
    }
    guard case .object(let body)? = JSONValue.parse(request.body) else {
      return Self.error(.badRequest, "invalid_json", "The body is not a JSON object.")
    }
    guard let writeKey = Self.writeKey(request, body), let tenant = tenant(writeKey) else {
      return Self.error(
        .unauthorized, "unauthorized", "Send the write key as the HTTP Basic user name, or as writeKey in the body.")
    }
    do {
      let messages = try Self.check(body)
      _ = events.store(messages, tenant: tenant)
      return .json(["success": true])
    } catch let problem as Problem {
      return Self.error(.badRequest, "invalid_request", problem.message)
    } catch {
      return Self.error(.badRequest, "invalid_request", "\(error)")
    }
  }

  /// The write key: the Basic user name (the password empty), else the body's `writeKey`.
  private static func writeKey(_ request: SandboxRequest, _ body: [String: JSONValue]) -> String? {
    if let authorization = request.header("Authorization"), authorization.lowercased().hasPrefix("basic "),
      let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
      let credentials = String(data: decoded, encoding: .utf8),
      let colon = credentials.firstIndex(of: ":")
    {
      let user = String(credentials[..<colon])
      return user.isEmpty ? nil : user
    }
    if case .string(let key)? = body["writeKey"], !key.isEmpty { return key }
    return nil
  }

  /// A rule a batch breaks.
  struct Problem: Error {
    let message: String
    init(_ message: String) { self.message = message }
  }

  /// The batch's messages with their ids, or the first rule it breaks.
  static func check(_ body: [String: JSONValue]) throws -> [(id: String, event: JSONValue)] {
    guard case .array(let batch)? = body["batch"] else { throw Problem("batch: an array of messages is required.") }
    guard batch.count <= maxMessages else { throw Problem("batch: at most \(maxMessages) messages.") }
    try optionalTimestamp(body["sentAt"], "sentAt")
    try optionalObject(body["context"], "context")
    try optionalObject(body["integrations"], "integrations")
    return try batch.enumerated().map { index, message in
      let path = "batch[\(index)]"
      guard case .object(let fields) = message else { throw Problem("\(path): a message is an object.") }
      guard message.encoded.count <= maxMessageBytes else {
        throw Problem("\(path): a message takes at most \(maxMessageBytes) bytes.")
      }
      return (try checkMessage(fields, path), message)
    }
  }

  /// The message's id (its `messageId`, or a new one), or the first rule it breaks.
  private static func checkMessage(_ fields: [String: JSONValue], _ path: String) throws -> String {
    guard case .string(let type)? = fields["type"], types.contains(type) else {
      throw Problem("\(path).type: one of \(types.sorted().joined(separator: ", ")) is required.")
    }
    let anonymousId = try optionalString(fields["anonymousId"], "\(path).anonymousId")
    let userId = try optionalString(fields["userId"], "\(path).userId")
    guard !(anonymousId ?? "").isEmpty || !(userId ?? "").isEmpty else {
      throw Problem("\(path): an anonymousId or a userId is required.")
    }
    let messageId = try optionalString(fields["messageId"], "\(path).messageId")
    if let messageId, messageId.isEmpty || messageId.count > 100 {
      throw Problem("\(path).messageId: 1 to 100 characters.")
    }
    for field in ["timestamp", "sentAt", "originalTimestamp"] {
      try optionalTimestamp(fields[field], "\(path).\(field)")
    }
    try optionalObject(fields["context"], "\(path).context")
    try optionalObject(fields["integrations"], "\(path).integrations")
    switch type {
    case "track":
      guard case .string(let event)? = fields["event"], !event.isEmpty else {
        throw Problem("\(path).event: a track needs the event's name.")
      }
      try optionalObject(fields["properties"], "\(path).properties")
    case "screen", "page":
      _ = try optionalString(fields["name"], "\(path).name")
      try optionalObject(fields["properties"], "\(path).properties")
    case "identify":
      try optionalObject(fields["traits"], "\(path).traits")
    case "group":
      guard case .string(let group)? = fields["groupId"], !group.isEmpty else {
        throw Problem("\(path).groupId: a group needs the group's id.")
      }
      try optionalObject(fields["traits"], "\(path).traits")
    default:
      guard case .string(let previous)? = fields["previousId"], !previous.isEmpty else {
        throw Problem("\(path).previousId: an alias needs the previous id.")
      }
    }
    return messageId?.lowercased() ?? UUID().uuidString.lowercased()
  }

  private static func optionalString(_ value: JSONValue?, _ path: String) throws -> String? {
    switch value {
    case nil, .null?: return nil
    case .string(let text)?: return text
    default: throw Problem("\(path): a string.")
    }
  }

  private static func optionalObject(_ value: JSONValue?, _ path: String) throws {
    switch value {
    case nil, .object?: return
    default: throw Problem("\(path): an object.")
    }
  }

  private static func optionalTimestamp(_ value: JSONValue?, _ path: String) throws {
    guard let value else { return }
    guard case .string(let text) = value, isISO8601(text) else {
      throw Problem("\(path): an ISO 8601 date and time, such as 2026-11-26T06:43:23.123Z.")
    }
  }

  /// Whether `text` is an ISO 8601 date and time with a zone: `2026-11-26T06:43:23Z`, `…23.123Z`, `…23.123456+00:00`.
  static func isISO8601(_ text: String) -> Bool {
    let pattern = /(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})/
    guard let match = text.wholeMatch(of: pattern) else { return false }
    let (month, day, hour, minute, second) = (
      Int(match.2) ?? 0, Int(match.3) ?? 0, Int(match.4) ?? 99, Int(match.5) ?? 99, Int(match.6) ?? 99
    )
    return (1...12).contains(month) && (1...31).contains(day) && hour < 24 && minute < 60 && second < 61
  }

  private static func error(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> SandboxResponse {
    .json(["code": .string(code), "message": .string(message)], status: status)
  }
}
