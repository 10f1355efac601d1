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

/// Compact JSON, appended to a byte buffer.
struct JSONWriter {
  var bytes: [UInt8] = []

  /// Appends `text` as it is: punctuation and keys that need no escaping.
  mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

  /// Appends `value`; its numbers must be finite (the tracker checks them).
  mutating func write(_ value: JSONValue) {
    switch value {
    case .null: raw("null")
    case .bool(let flag): raw(flag ? "true" : "false")
    case .number(let number): raw(Int64(exactly: number).map { String($0) } ?? number.description)
    case .string(let text): string(text)
    case .array(let values):
      bytes.append(UInt8(ascii: "["))
      for (index, element) in values.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        write(element)
      }
      bytes.append(UInt8(ascii: "]"))
    case .object(let fields): object(fields)
    }
  }

  /// Appends `fields` as an object.
  mutating func object(_ fields: [String: JSONValue]) {
    bytes.append(UInt8(ascii: "{"))
    var first = true
    for (key, element) in fields {
      if !first { bytes.append(UInt8(ascii: ",")) }
      first = false
      string(key)
      bytes.append(UInt8(ascii: ":"))
      write(element)
    }
    bytes.append(UInt8(ascii: "}"))
  }

  /// Appends `text` as a JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
  mutating func string(_ text: String) {
    bytes.append(UInt8(ascii: "\""))
    // Most strings need no escape: copy them whole.
    if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
      bytes.append(contentsOf: text.utf8)
      bytes.append(UInt8(ascii: "\""))
      return
    }
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
      case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
      case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
      case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
      case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
      case 0..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(contentsOf: Array("\\u00".utf8))
        bytes.append(hex[Int(byte >> 4)])
        bytes.append(hex[Int(byte & 0xF)])
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }
}
