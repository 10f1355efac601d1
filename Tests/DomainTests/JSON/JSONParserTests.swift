import Foundation
import KeelJSON
import KeelRandom
import Testing

/// `JSONValue(parsing:)`, which reads every Socket.IO packet and every Sandbox request body: it accepts what
/// `JSONSerialization` accepts, refuses what it refuses and gives the same values, checked side by side on texts
/// chosen for JSON's corners and on seeded random values and random corruptions of them.
@Suite("JSON parser")
struct JSONParserTests {
  /// What `JSONValue(parsing:)` gave when it was `JSONSerialization` and a rebuilt tree; `nil` for an error.
  private func foundation(_ bytes: [UInt8]) -> JSONValue? {
    guard let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else {
      return nil
    }
    return Self.value(object)
  }

  private static func value(_ object: Any) -> JSONValue {
    switch object {
    case let string as String: return .string(string)
    case let number as NSNumber:
      return String(cString: number.objCType) == "c" ? .bool(number.boolValue) : .number(number.doubleValue)
    case let array as [Any]: return .array(array.map(value))
    case let fields as [String: Any]: return .object(fields.mapValues(value))
    default: return .null
    }
  }

  private func keel(_ bytes: [UInt8]) -> JSONValue? { try? JSONValue(parsing: Data(bytes)) }

  /// Whether both readers agree on `bytes`: both refuse it, or both read equal values. Numbers may differ in their
  /// last bits: `JSONSerialization` on Linux is up to ten units in the last place from the nearest `Double` (see
  /// `exactNumbers`).
  private func agree(_ bytes: [UInt8]) -> Bool {
    switch (keel(bytes), foundation(bytes)) {
    case (nil, nil): true
    case (let mine?, let theirs?): Self.identical(mine, theirs)
    default: false
    }
  }

  private static func identical(_ left: JSONValue, _ right: JSONValue) -> Bool {
    switch (left, right) {
    case (.number(let a), .number(let b)):
      a == b || abs(a - b) <= max(1e-14 * max(abs(a), abs(b)), Double.leastNormalMagnitude)
    case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy(identical)
    case (.object(let a), .object(let b)):
      a.count == b.count && a.allSatisfy { key, value in b[key].map { identical(value, $0) } ?? false }
    default: left == right
    }
  }

  @Test(
    "Texts at JSON's corners read as JSONSerialization reads them",
    arguments: [
      "null", "true", "false", "0", "-0", "1", "-1", "1.0", "0.1", "-3.25", "1e3", "1E+3", "2.5e-3", "1e-400", "1e400",
      "-1e400", "123456789012345678", "1234567890123456789", "9007199254740993", "18446744073709551615",
      "18446744073709551616", "123456789012345678901234567890", "0.30000000000000004", "4.9406564584124654e-324",
      "1.7976931348623157e308", "1.7976931348623159e308", "01", "-01", "1.", ".5", "-", "+1", "1e", "1e+", "0x10",
      "NaN", "Infinity", "tru", "nulll", "True", #""""#, #""a""#, #""\"\\\/\b\f\n\r\t""#, #""\u0041\u00e9\u4e2d""#,
      #""\ud83d\ude00""#, #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\ud800x""#, #""\u12""#, #""\uZZZZ""#,
      #""\x""#, #""\u0000""#, "\"a\u{1}\"", "\"\u{7F}\"", "\"tab\there\"", "\"안녕 👋🏽\"", "\"unterminated", "[]", "{}",
      "[1,2,3]", "[1 2]", "[,1]", "[1,,2]", "[", "]", "{\"a\":1,\"a\":2}", #"{"\u0061":1,"a":2}"#, #"{"a" 1}"#,
      #"{"a":}"#, #"{a:1}"#, #"{"a":1 "b":2}"#, #"{"a":1}}"#, "[]x", " \t\n\r[ 1 , { \"k\" : [ ] } ] \n",
      "\u{FEFF}[1]", "\u{FEFF}", "", "   ", "[\"\\/\"]", #"{"nested":{"deeper":[{"x":[null,true,-0.5e-2]}]}}"#,
    ] as [String])
  func corners(_ text: String) {
    #expect(agree(Array(text.utf8)), "\(text.debugDescription): \(String(describing: keel(Array(text.utf8))))")
  }

  @Test("A number reads as the nearest Double: what Swift writes for a Double reads back bit for bit")
  func exactNumbers() throws {
    var random = SplitMix64(seed: 0x6E75_6D62)
    for _ in 0..<10_000 {
      let number = Double(bitPattern: random.next())
      guard number.isFinite else { continue }
      let parsed = try JSONValue(parsing: Data(number.description.utf8))
      #expect(parsed == .number(number), "\(number.description)")
    }
    // Three that JSONSerialization on Linux reads one unit in the last place off.
    for text in ["1.0796605758733198e+25", "-0.05731212673592524", "2.2714252392119982e-26"] {
      #expect(try JSONValue(parsing: Data(text.utf8)) == .number(Double(text)!), "\(text)")
    }
  }

  @Test("Bytes that are not UTF-8 are refused inside a string, as JSONSerialization refuses them")
  func invalidUTF8() {
    let strings: [[UInt8]] = [
      [0xFF], [0xC3], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
      [0xF0, 0x9F, 0x98], [0x80], [0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80], [0xEF, 0xBF, 0xBF],
    ]
    for content in strings {
      let text = [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
      #expect(agree(text), "\(content)")
      #expect(agree([UInt8(ascii: "[")] + content + [UInt8(ascii: "]")]), "\(content) outside a string")
    }
  }

  @Test("Containers nest 512 deep and no deeper, and a deeper text is refused without exhausting the stack")
  func depth() {
    for depth in [511, 512, 513, 100_000] {
      let text = Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)
      #expect(agree(text), "\(depth)")
    }
    #expect(
      keel(Array(repeating: UInt8(ascii: "["), count: 512) + Array(repeating: UInt8(ascii: "]"), count: 512)) != nil)
    let objects = Array(String(repeating: #"{"a":"#, count: 600).utf8)
    #expect(keel(objects) == nil)
  }

  @Test("A trailing comma is refused, as RFC 8259 says (JSONSerialization on Linux accepts one)")
  func trailingComma() {
    for text in ["[1,]", #"{"a":1,}"#, "[1,2,]"] {
      #expect(keel(Array(text.utf8)) == nil, "\(text)")
    }
  }

  @Test("An error says where the text stopped being JSON")
  func errorOffset() {
    #expect(throws: JSONParsingError(offset: 6, reason: "an array's elements not separated by commas")) {
      try JSONValue(parsing: Data("[1, 2 3]".utf8))
    }
    #expect(throws: JSONParsingError(offset: 4, reason: "an unterminated string")) {
      try JSONValue(parsing: Data(#""abc"#.utf8))
    }
  }

  @Test("Seeded random values, written with and without spaces, read back as JSONSerialization reads them")
  func randomValues() {
    var random = SplitMix64(seed: 0x4A53_4F4E)
    for _ in 0..<2_000 {
      let value = Self.randomValue(depth: 0, &random)
      var writer = JSONWriter(sortsKeys: random.next() & 1 == 0)
      writer.write(value)
      let spaced = Self.spaced(writer.bytes, &random)
      #expect(agree(writer.bytes), "\(String(decoding: writer.bytes, as: UTF8.self))")
      #expect(agree(spaced), "\(String(decoding: spaced, as: UTF8.self))")
    }
  }

  @Test("Random corruptions of valid texts are refused or read exactly as JSONSerialization refuses or reads them")
  func randomCorruptions() {
    var random = SplitMix64(seed: 0xC0FF_EE)
    let alphabet = Array(#"{}[],:"\ -+.eE0159aflnrstu"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xED, 0xFF]
    var checked = 0
    while checked < 5_000 {
      var writer = JSONWriter()
      writer.write(Self.randomValue(depth: 0, &random))
      var bytes = writer.bytes
      for _ in 0...Int(random.next() % 3) {
        let position = Int(random.next() % UInt64(bytes.count))
        switch random.next() % 3 {
        case 0: bytes[position] = alphabet[Int(random.next() % UInt64(alphabet.count))]
        case 1: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: position)
        default: if bytes.count > 1 { bytes.remove(at: position) }
        }
      }
      // What only JSONSerialization reads: UTF-16 and UTF-32 (told by a zero byte among the first four) and a
      // trailing comma.
      if bytes.prefix(4).contains(0) || Self.hasTrailingComma(bytes) { continue }
      #expect(agree(bytes), "\(bytes.map { String($0) }.joined(separator: ","))")
      checked += 1
    }
  }

  /// For each byte of `bytes`, whether it is part of a string (its quotes included): where a test may not add
  /// whitespace, and where a comma is text.
  private static func inStrings(_ bytes: [UInt8]) -> [Bool] {
    var inString = false
    var escaped = false
    return bytes.map { byte in
      defer {
        if inString && !escaped && byte == UInt8(ascii: "\\") {
          escaped = true
        } else {
          if escaped {
            escaped = false
          } else if byte == UInt8(ascii: "\"") {
            inString.toggle()
          }
        }
      }
      return inString || byte == UInt8(ascii: "\"")
    }
  }

  private static func hasTrailingComma(_ bytes: [UInt8]) -> Bool {
    var lastSignificant: UInt8 = 0
    for (byte, quoted) in zip(bytes, inStrings(bytes)) where !quoted {
      if (byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}")) && lastSignificant == UInt8(ascii: ",") {
        return true
      }
      if ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains(byte) {
        lastSignificant = byte
      }
    }
    return false
  }

  private static func randomValue(depth: Int, _ random: inout SplitMix64) -> JSONValue {
    switch random.next() % (depth < 4 ? 8 : 6) {
    case 0: return .null
    case 1: return .bool(random.next() & 1 == 0)
    case 2: return .number(Double(Int64(bitPattern: random.next()) >> Int64(random.next() % 64)))
    case 3:
      let number = Double(bitPattern: random.next())
      return .number(number.isFinite ? number : random.nextUnit())
    case 4, 5: return .string(randomString(&random))
    case 6: return .array((0..<Int(random.next() % 5)).map { _ in randomValue(depth: depth + 1, &random) })
    default:
      var fields: [String: JSONValue] = [:]
      for _ in 0..<Int(random.next() % 5) { fields[randomString(&random)] = randomValue(depth: depth + 1, &random) }
      return .object(fields)
    }
  }

  private static func randomString(_ random: inout SplitMix64) -> String {
    let pieces = [
      "a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\u{1}", "\u{1F}", "\u{7F}", "é", "中", "👋🏽", "\u{FFFF}", "0",
    ]
    return (0..<Int(random.next() % 8)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
  }

  /// `bytes` with whitespace added around punctuation (never inside a string, a number or a word).
  private static func spaced(_ bytes: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
    let spaces = Array(" \n\r\t".utf8)
    let punctuation = Array("{}[],:".utf8)
    var result: [UInt8] = []
    var previousQuoted = false
    for (byte, quoted) in zip(bytes, inStrings(bytes)) {
      // Before punctuation, and before a string's opening quote.
      if (!quoted && punctuation.contains(byte)) || (quoted && !previousQuoted), random.next() % 2 == 0 {
        result.append(spaces[Int(random.next() % 4)])
      }
      result.append(byte)
      previousQuoted = quoted
    }
    return result + [spaces[Int(random.next() % 4)]]
  }
}
