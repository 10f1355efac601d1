import Foundation

/// A JSON value: what an analytics event's properties may hold (Domain), and what the Sandbox reads and writes.
/// Decoded strictly: `true` is never a number and `1` is never a boolean. A whole number is written without a
/// fraction (`3`, not `3.0`).
///
/// ```swift
/// let properties: [String: JSONValue] = ["screen": "home", "items": 3, "premium": true, "tags": ["a", "b"]]
/// ```
///
/// Numbers are `Double`s, as in JSON: integers beyond ±2^53 lose precision. Infinities and NaN have no JSON form and
/// are refused when an event is tracked.
public enum JSONValue: Sendable, Hashable, Codable {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number.
  case number(Double)
  /// A string.
  case string(String)
  /// An array.
  case array([JSONValue])
  /// An object.
  case object([String: JSONValue])

  /// Reads any JSON value.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  /// Writes the value as JSON.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .number(let value):
      if let integer = Int64(exactly: value) { try container.encode(integer) } else { try container.encode(value) }
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }
}

extension JSONValue: JSONLiteral {}

extension JSONValue {
  /// Parses JSON `data`, any value at its top, with `JSONSerialization`: the same values as decoding through
  /// `Codable`, a good deal faster, since `init(from:)` can only try each type in turn and throws for every miss
  /// (three throws for an object, each of which a test runner may stop to record).
  ///
  /// - Throws: the parser's error for text that is not JSON.
  public init(parsing data: Data) throws {
    self = Self(foundation: try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
  }

  /// The value `JSONSerialization` gives: a boolean is the number whose type is `c` (char), as on every platform's
  /// Foundation, so that `true` stays a boolean and `1` a number.
  private init(foundation value: Any) {
    switch value {
    case let string as String: self = .string(string)
    case let number as NSNumber:
      self = String(cString: number.objCType) == "c" ? .bool(number.boolValue) : .number(number.doubleValue)
    case let array as [Any]: self = .array(array.map(JSONValue.init(foundation:)))
    case let object as [String: Any]: self = .object(object.mapValues(JSONValue.init(foundation:)))
    default: self = .null
    }
  }
}
