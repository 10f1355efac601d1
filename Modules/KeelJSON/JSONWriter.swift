/// Compact JSON appended to a byte buffer, written directly rather than through `JSONEncoder` (which on Linux goes
/// through `Codable`, an encoder object per value, and Foundation's string comparison for sorted keys): for the hot
/// paths that write `JSONValue`s, such as a queued event and every Sandbox answer.
package struct JSONWriter {
  /// The JSON written so far.
  package var bytes: [UInt8] = []
  /// Whether objects' keys are written in ascending order of their UTF-8 bytes, so that equal values are written as
  /// equal bytes; otherwise in the dictionary's order.
  package let sortsKeys: Bool

  /// An empty writer.
  package init(sortsKeys: Bool = false) {
    self.sortsKeys = sortsKeys
  }

  /// Appends `text` as it is: punctuation and keys that need no escaping.
  package mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

  /// Appends `value`; a number that is not finite is written as `null`, which is what JSON can say of it.
  package mutating func write(_ value: JSONValue) {
    switch value {
    case .null: raw("null")
    case .bool(let flag): raw(flag ? "true" : "false")
    case .number(let number):
      if let integer = Int64(exactly: number) {
        raw(String(integer))
      } else {
        raw(number.isFinite ? number.description : "null")
      }
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
  package mutating func object(_ fields: [String: JSONValue]) {
    bytes.append(UInt8(ascii: "{"))
    var first = true
    if sortsKeys {
      for key in fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        string(key)
        bytes.append(UInt8(ascii: ":"))
        write(fields[key].unsafelyUnwrapped)
      }
    } else {
      for (key, element) in fields {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        string(key)
        bytes.append(UInt8(ascii: ":"))
        write(element)
      }
    }
    bytes.append(UInt8(ascii: "}"))
  }

  /// Appends `text` as a JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
  package mutating func string(_ text: String) {
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
