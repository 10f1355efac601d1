/// Why a text is not JSON, and where: what ``JSONValue/init(parsing:)`` throws.
public struct JSONParsingError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The offset of the byte at which the text stopped being JSON (its length when it ended too soon).
  public let offset: Int
  /// What was wrong there, such as "an unterminated string".
  public let reason: String

  /// An error at `offset` for `reason`.
  package init(offset: Int, reason: String) {
    self.offset = offset
    self.reason = reason
  }

  /// What was wrong and where, for a log or a test's failure.
  public var description: String { "Not JSON at byte \(offset): \(reason)." }
}

/// RFC 8259's grammar read from UTF-8 bytes straight into ``JSONValue``s: one pass, no intermediate Foundation
/// objects to cast back (which made `JSONSerialization` plus a rebuilt tree cost a quarter of a Socket.IO client's
/// time per event). It accepts what `JSONSerialization` accepts and gives the same values, with three differences
/// the tests pin: a trailing comma (`[1,]`) is refused, as the RFC says; only UTF-8 text is read (RFC 8259 §8.1; a
/// byte-order mark is skipped); and a number is the `Double` nearest its text, which `JSONSerialization` on Linux
/// misses by up to ten units in the last place (so a `Double` written by Swift reads back bit for bit).
///
/// Containers nest at most 512 deep, as in `JSONSerialization`, so that no text can exhaust the stack; a number too
/// large for a `Double` is refused and a tiny one is 0; a duplicate key keeps its last value.
struct JSONParser: ~Copyable {
  /// How deep arrays and objects may nest.
  static let maximumDepth = 512

  private let bytes: UnsafeBufferPointer<UInt8>
  private var index = 0

  init(_ bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  /// The one value `bytes` hold, with nothing but whitespace around it.
  mutating func document() throws(JSONParsingError) -> JSONValue {
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    skipWhitespace()
    let result = try value(depth: 0)
    skipWhitespace()
    guard index == bytes.count else { throw failure("text after the value") }
    return result
  }

  private mutating func value(depth: Int) throws(JSONParsingError) -> JSONValue {
    guard index < bytes.count else { throw failure("no value") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try object(depth: depth + 1)
    case UInt8(ascii: "["): return try array(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"):
      try literal("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try literal("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try literal("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
    default: throw failure("an unexpected character")
    }
  }

  private mutating func object(depth: Int) throws(JSONParsingError) -> JSONValue {
    guard depth <= Self.maximumDepth else { throw failure("containers nested more than 512 deep") }
    index += 1
    var fields: [String: JSONValue] = [:]
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .object(fields)
    }
    while true {
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw failure("an object key that is not a string")
      }
      let key = try string()
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("a key without a colon") }
      index += 1
      skipWhitespace()
      fields[key] = try value(depth: depth)
      skipWhitespace()
      guard index < bytes.count else { throw failure("an unterminated object") }
      switch bytes[index] {
      case UInt8(ascii: ","):
        index += 1
        skipWhitespace()
      case UInt8(ascii: "}"):
        index += 1
        return .object(fields)
      default: throw failure("an object's fields not separated by commas")
      }
    }
  }

  private mutating func array(depth: Int) throws(JSONParsingError) -> JSONValue {
    guard depth <= Self.maximumDepth else { throw failure("containers nested more than 512 deep") }
    index += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array(elements)
    }
    while true {
      elements.append(try value(depth: depth))
      skipWhitespace()
      guard index < bytes.count else { throw failure("an unterminated array") }
      switch bytes[index] {
      case UInt8(ascii: ","):
        index += 1
        skipWhitespace()
      case UInt8(ascii: "]"):
        index += 1
        return .array(elements)
      default: throw failure("an array's elements not separated by commas")
      }
    }
  }

  private mutating func literal(_ word: StaticString) throws(JSONParsingError) {
    let count = word.utf8CodeUnitCount
    guard bytes.count - index >= count else { throw failure("an unknown word") }
    for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
      throw failure("an unknown word")
    }
    index += count
  }

  // MARK: - Numbers

  /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`. A whole number of up to 18 digits is exact in a `UInt64`,
  /// and converting it rounds as reading the decimal would; anything else is read by the standard library's
  /// correctly rounded conversion.
  private mutating func number() throws(JSONParsingError) -> Double {
    let start = index
    let negative = bytes[index] == UInt8(ascii: "-")
    if negative { index += 1 }
    guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a minus sign without digits") }
    var whole: UInt64 = 0
    var digits = 0
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
    } else {
      while index < bytes.count, isDigit(bytes[index]) {
        whole = whole &* 10 &+ UInt64(bytes[index] &- UInt8(ascii: "0"))
        digits += 1
        index += 1
      }
    }
    var isWhole = true
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      isWhole = false
      index += 1
      try digitsRequired("a decimal point without digits after it")
    }
    if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
      isWhole = false
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
      try digitsRequired("an exponent without digits")
    }
    if isWhole, digits <= 18 {
      let magnitude = Double(whole)
      return negative && whole != 0 ? -magnitude : magnitude
    }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    guard let number = Double(text), number.isFinite else {
      index = start
      throw failure("a number too large for a Double")
    }
    return number
  }

  private mutating func digitsRequired(_ reason: String) throws(JSONParsingError) {
    guard index < bytes.count, isDigit(bytes[index]) else { throw failure(reason) }
    while index < bytes.count, isDigit(bytes[index]) { index += 1 }
  }

  private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

  // MARK: - Strings

  /// The string whose opening quote is at `index`. Most strings have no escape: their bytes, checked to be UTF-8
  /// as they are scanned, become the string whole.
  private mutating func string() throws(JSONParsingError) -> String {
    index += 1
    let start = index
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        index += 1
        return text
      }
      if byte == UInt8(ascii: "\\") { break }
      try character(byte)
    }
    guard index < bytes.count else { throw failure("an unterminated string") }
    var unescaped = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        return String(decoding: unescaped, as: UTF8.self)
      case UInt8(ascii: "\\"):
        try escape(into: &unescaped)
      default:
        let characterStart = index
        try character(byte)
        unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[characterStart..<index]))
      }
    }
    throw failure("an unterminated string")
  }

  /// Steps over one character of a string starting with `byte`: a control character is refused, and a byte past
  /// ASCII must start a well-formed UTF-8 sequence (the Unicode Standard's table 3-7: no overlong forms, no
  /// surrogates, nothing past U+10FFFF).
  private mutating func character(_ byte: UInt8) throws(JSONParsingError) {
    if byte < 0x80 {
      guard byte >= 0x20 else { throw failure("a control character in a string") }
      index += 1
      return
    }
    let continuation: Int
    var second: ClosedRange<UInt8> = 0x80...0xBF
    switch byte {
    case 0xC2...0xDF: continuation = 1
    case 0xE0:
      continuation = 2
      second = 0xA0...0xBF
    case 0xE1...0xEC, 0xEE...0xEF: continuation = 2
    case 0xED:
      continuation = 2
      second = 0x80...0x9F
    case 0xF0:
      continuation = 3
      second = 0x90...0xBF
    case 0xF1...0xF3: continuation = 3
    case 0xF4:
      continuation = 3
      second = 0x80...0x8F
    default: throw failure("text that is not UTF-8")
    }
    guard bytes.count - index > continuation, second.contains(bytes[index + 1]) else {
      throw failure("text that is not UTF-8")
    }
    for offset in stride(from: 2, through: continuation, by: 1) where bytes[index + offset] & 0xC0 != 0x80 {
      throw failure("text that is not UTF-8")
    }
    index += continuation + 1
  }

  /// Appends the character of the escape at `index` to `unescaped`; a `\u` escape of a UTF-16 surrogate must be
  /// half of a pair.
  private mutating func escape(into unescaped: inout [UInt8]) throws(JSONParsingError) {
    guard bytes.count - index >= 2 else { throw failure("an unterminated string") }
    let letter = bytes[index + 1]
    index += 2
    switch letter {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(letter)
    case UInt8(ascii: "b"): unescaped.append(0x08)
    case UInt8(ascii: "f"): unescaped.append(0x0C)
    case UInt8(ascii: "n"): unescaped.append(0x0A)
    case UInt8(ascii: "r"): unescaped.append(0x0D)
    case UInt8(ascii: "t"): unescaped.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = try hexQuad()
      if (0xD800...0xDBFF).contains(scalar) {
        guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
        else { throw failure("half of a UTF-16 surrogate pair") }
        index += 2
        let low = try hexQuad()
        guard (0xDC00...0xDFFF).contains(low) else { throw failure("half of a UTF-16 surrogate pair") }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00...0xDFFF).contains(scalar) {
        throw failure("half of a UTF-16 surrogate pair")
      }
      unescaped.append(contentsOf: Unicode.UTF8.encode(Unicode.Scalar(scalar).unsafelyUnwrapped).unsafelyUnwrapped)
    default:
      index -= 1
      throw failure("an unknown escape")
    }
  }

  private mutating func hexQuad() throws(JSONParsingError) -> UInt32 {
    guard bytes.count - index >= 4 else { throw failure("a \\u escape without four hex digits") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw failure("a \\u escape without four hex digits")
      }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }

  // MARK: -

  private mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
      default: return
      }
    }
  }

  private func failure(_ reason: String) -> JSONParsingError {
    JSONParsingError(offset: min(index, bytes.count), reason: reason)
  }
}
