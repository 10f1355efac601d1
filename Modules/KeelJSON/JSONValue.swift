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
  /// Parses JSON `data`, any value at its top, in one pass from its UTF-8 bytes: the same values as decoding through
  /// `Codable` or `JSONSerialization`, a good deal faster than either (`init(from:)` can only try each type in turn
  /// and throws for every miss; `JSONSerialization` builds Foundation objects that must be cast back). Arrays and
  /// objects nest at most 512 deep; a trailing comma is refused.
  ///
  /// ```swift
  /// import Foundation
  ///
  /// let value = try JSONValue(parsing: Data(#"{"name":"Ann","tags":["a"],"age":30}"#.utf8))
  /// ```
  ///
  /// - Throws: ``JSONParsingError`` for text that is not JSON, with the offset of the byte where it stopped being.
  public init(parsing data: Data) throws(JSONParsingError) {
    self = try Self(parsingUTF8: data)
  }

  /// Parses the JSON in `bytes`, UTF-8 text, without copying them when they are contiguous (an array, a slice of
  /// one, `Data`, a native string's `utf8`).
  ///
  /// - Throws: ``JSONParsingError`` for text that is not JSON.
  package init(parsingUTF8 bytes: some Collection<UInt8>) throws(JSONParsingError) {
    let parse = { (buffer: UnsafeBufferPointer<UInt8>) in
      Result { () throws(JSONParsingError) in
        var parser = JSONParser(buffer)
        return try parser.document()
      }
    }
    self = try (bytes.withContiguousStorageIfAvailable(parse) ?? Array(bytes).withUnsafeBufferPointer(parse)).get()
  }
}
