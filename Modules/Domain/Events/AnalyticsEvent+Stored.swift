import Foundation
import KeelJSON

extension AnalyticsEvent {
  /// The event as the queue stores it: the JSON its `Codable` conformance reads, written directly rather than
  /// through `JSONEncoder`, which on Linux cost most of a `track` once `fsync` was gone (Decision 0017). Keys in a
  /// fixed order, strings escaped as JSON requires, numbers in their shortest round-trip form, the timestamp as
  /// `Date`'s own encoding (seconds since 2001).
  ///
  /// With `builtIn`, the context stored is `builtIn`'s fields and `sessionId`, under the event's own context (whose
  /// keys win): what the tracker's enrichment would have merged, written without merging.
  func storedJSON(adding builtIn: BuiltInContext? = nil, sessionId: Int64 = 0) -> Data {
    var json = JSONWriter()
    json.bytes.reserveCapacity(512)
    json.raw("{\"eventId\":")
    json.string(eventId.uuidString)
    if kind != .track {
      json.raw(",\"kind\":")
      json.string(kind.rawValue)
    }
    json.raw(",\"name\":")
    json.string(name)
    json.raw(",\"timestamp\":")
    json.raw(timestamp.timeIntervalSinceReferenceDate.description)
    json.raw(",\"properties\":")
    json.object(properties)
    if let anonymousId {
      json.raw(",\"anonymousId\":")
      json.string(anonymousId)
    }
    if let userId {
      json.raw(",\"userId\":")
      json.string(userId)
    }
    if !traits.isEmpty {
      json.raw(",\"traits\":")
      json.object(traits)
    }
    if let builtIn {
      json.raw(",\"context\":{")
      for (key, value) in context {
        json.string(key)
        json.bytes.append(UInt8(ascii: ":"))
        json.write(value)
        json.bytes.append(UInt8(ascii: ","))
      }
      if context.isEmpty {
        json.bytes.append(contentsOf: builtIn.bytes)
      } else {
        for (key, value) in builtIn.fields where context[key] == nil {
          json.string(key)
          json.bytes.append(UInt8(ascii: ":"))
          json.write(value)
          json.bytes.append(UInt8(ascii: ","))
        }
      }
      if context["sessionId"] == nil {
        json.raw("\"sessionId\":\(sessionId)")
      } else if json.bytes.last == UInt8(ascii: ",") {
        json.bytes.removeLast()
      }
      json.raw("}")
    } else if !context.isEmpty {
      json.raw(",\"context\":")
      json.object(context)
    }
    json.raw("}")
    return Data(json.bytes)
  }
}

/// The context the tracker's built-in enrichment adds to every event, with its fields already written as JSON
/// (`"app":{…},"os":{…},…,` with a trailing comma), so that an event without plugins copies them instead of
/// serializing them again.
struct BuiltInContext: Sendable {
  let fields: [String: JSONValue]
  let bytes: [UInt8]

  init(_ fields: [String: JSONValue]) {
    self.fields = fields
    var json = JSONWriter()
    for (key, value) in fields {
      json.string(key)
      json.bytes.append(UInt8(ascii: ":"))
      json.write(value)
      json.bytes.append(UInt8(ascii: ","))
    }
    bytes = json.bytes
  }
}
