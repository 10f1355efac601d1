import Foundation
@_exported import KeelJSON

/// One argument of a Socket.IO event or acknowledgement: a JSON value, or binary data, which travels as an attachment
/// beside the packet's JSON (REQUIREMENTS R1).
///
/// ```swift
/// import Foundation
///
/// let message: SocketValue = ["text": "hello", "channel": "general", "urgent": false, "tags": ["a", "b"]]
/// let photo = SocketValue.binary(Data([0x89, 0x50, 0x4E, 0x47]))
/// print(message["text"]?.string ?? "", photo)
/// ```
///
/// Numbers are `Double`s, as in JSON: integers beyond ±2^53 lose precision. Infinities and NaN have no JSON form and
/// are refused when emitted.
public enum SocketValue: Sendable, Hashable {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number.
  case number(Double)
  /// A string.
  case string(String)
  /// An array.
  case array([SocketValue])
  /// An object.
  case object([String: SocketValue])
  /// Binary data: sent as a WebSocket binary message of its own, a placeholder standing in the JSON.
  case binary(Data)

  /// The string, if this is one.
  public var string: String? {
    if case .string(let value) = self { value } else { nil }
  }

  /// The number, if this is one.
  public var number: Double? {
    if case .number(let value) = self { value } else { nil }
  }

  /// The data, if this is binary.
  public var data: Data? {
    if case .binary(let value) = self { value } else { nil }
  }

  /// The value under `key`, if this is an object that has one.
  public subscript(key: String) -> SocketValue? {
    if case .object(let fields) = self { fields[key] } else { nil }
  }
}

extension SocketValue: JSONLiteral {}

extension SocketValue: CustomStringConvertible {
  /// The value as JSON, binary data shown by its size only (`<binary 3 bytes>`), never its content.
  public var description: String {
    switch self {
    case .null: "null"
    case .bool(let value): "\(value)"
    case .number(let value): value.rounded() == value && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
    case .string(let value): "\"\(value)\""
    case .array(let values): "[" + values.map(\.description).joined(separator: ",") + "]"
    case .object(let fields):
      "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    case .binary(let data): "<binary \(data.count) bytes>"
    }
  }
}

// MARK: - JSON and attachments

extension SocketValue {
  /// This value as JSON with every binary replaced by a placeholder (`{"_placeholder":true,"num":N}`, numbered in
  /// the order they are met, depth first), and the binaries in that order.
  package func extractingAttachments() -> (json: JSONValue, attachments: [Data]) {
    var attachments: [Data] = []
    let json = json { data in
      attachments.append(data)
      return .object(["_placeholder": .bool(true), "num": .number(Double(attachments.count - 1))])
    }
    return (json, attachments)
  }

  /// This value as JSON, each binary (depth first, in order) written as `binary` says.
  package func json(binary: (Data) -> JSONValue) -> JSONValue {
    switch self {
    case .null: .null
    case .bool(let value): .bool(value)
    case .number(let value): .number(value)
    case .string(let value): .string(value)
    case .array(let values): .array(values.map { $0.json(binary: binary) })
    case .object(let fields): .object(fields.mapValues { $0.json(binary: binary) })
    case .binary(let data): binary(data)
    }
  }

  /// `json` as a value, each object that `binary` reads as binary data (it returns the data) taken as that data, and
  /// every other object as an object: the one conversion from JSON, whatever marks binary data in it (a packet's
  /// attachment placeholders, the CLI's base64 objects).
  package init<Failure: Error>(
    _ json: JSONValue, binary: ([String: JSONValue]) throws(Failure) -> Data?
  ) throws(Failure) {
    switch json {
    case .null: self = .null
    case .bool(let value): self = .bool(value)
    case .number(let value): self = .number(value)
    case .string(let value): self = .string(value)
    case .array(let values):
      var converted: [SocketValue] = []
      converted.reserveCapacity(values.count)
      for value in values { converted.append(try SocketValue(value, binary: binary)) }
      self = .array(converted)
    case .object(let fields):
      if let data = try binary(fields) {
        self = .binary(data)
        return
      }
      var converted: [String: SocketValue] = [:]
      converted.reserveCapacity(fields.count)
      for (key, value) in fields { converted[key] = try SocketValue(value, binary: binary) }
      self = .object(converted)
    }
  }

  /// `json` with each placeholder replaced by its attachment; `nil` attachments leave placeholders as the objects they
  /// are (a packet that is not binary).
  ///
  /// - Throws: `SocketIOError.Kind.invalidPacket` for a placeholder whose number names no attachment.
  package static func resolving(_ json: JSONValue, attachments: [Data]?) throws(SocketIOError) -> SocketValue {
    try SocketValue(json) { fields throws(SocketIOError) -> Data? in
      guard let attachments, fields.count == 2, fields["_placeholder"] == .bool(true),
        case .number(let number)? = fields["num"]
      else { return nil }
      guard number >= 0, number < Double(attachments.count), number.rounded() == number else {
        throw SocketIOError(.invalidPacket, "A binary placeholder names attachment \(number) of \(attachments.count).")
      }
      return attachments[Int(number)]
    }
  }

  /// Whether this value has a JSON form: no infinity or NaN anywhere in it.
  var isRepresentable: Bool {
    switch self {
    case .number(let value): value.isFinite
    case .array(let values): values.allSatisfy(\.isRepresentable)
    case .object(let fields): fields.values.allSatisfy(\.isRepresentable)
    default: true
    }
  }
}

extension SocketValue {
  /// About how many bytes the value takes: its strings' and data's bytes, eight for a number, a few for the rest.
  var approximateSize: Int {
    switch self {
    case .null, .bool: 4
    case .number: 8
    case .string(let string): string.utf8.count
    case .binary(let data): data.count
    case .array(let values): values.reduce(2) { $0 + $1.approximateSize }
    case .object(let fields): fields.reduce(2) { $0 + $1.key.utf8.count + $1.value.approximateSize }
    }
  }
}
