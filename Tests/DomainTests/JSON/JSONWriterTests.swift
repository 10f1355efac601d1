import Foundation
import KeelJSON
import Testing

/// `JSONWriter`, which writes every queued event and every Sandbox answer and Socket.IO packet: what it writes reads
/// back as the same value, and sorted keys make equal values equal bytes.
@Suite("JSON writer")
struct JSONWriterTests {
  private func written(_ value: JSONValue, sortsKeys: Bool = true) -> String {
    var writer = JSONWriter(sortsKeys: sortsKeys)
    writer.write(value)
    return String(decoding: writer.bytes, as: UTF8.self)
  }

  @Test("Sorted keys are in the order of their UTF-8 bytes, at every depth")
  func sortedKeys() {
    let value: JSONValue = ["b": 1, "B": 2, "a_b": ["z": true, "_": nil], "aB": [], "10": "x", "9": "y"]
    #expect(written(value) == #"{"10":"x","9":"y","B":2,"aB":[],"a_b":{"_":null,"z":true},"b":1}"#)
  }

  @Test("Strings with quotes, backslashes, control characters and any script read back the same")
  func strings() throws {
    let texts = ["plain", "say \"hi\"", #"C:\path\"#, "line\nbreak\ttab\r", "\u{1}\u{1F}\u{7F}", "안녕 👋🏽 é", "/slash/"]
    for text in texts {
      let json = written(.array([.string(text)]))
      #expect(try JSONValue(parsing: Data(json.utf8)) == .array([.string(text)]), "\(json)")
    }
    #expect(written(.string("/a\u{1}")) == #""/a\u0001""#)
  }

  @Test("Whole numbers have no fraction, others round-trip, and what JSON cannot say is null")
  func numbers() throws {
    #expect(written([1, -2, 0, 1e15]) == "[1,-2,0,1000000000000000]")
    for number in [0.1, -3.25, 1e-7, 123_456.789, Double.ulpOfOne] {
      let json = written(.array([.number(number)]))
      #expect(try JSONValue(parsing: Data(json.utf8)) == .array([.number(number)]), "\(json)")
    }
    #expect(written([.number(.nan), .number(.infinity)]) == "[null,null]")
  }

  @Test("Unsorted, an object still reads back as the same value")
  func unsorted() throws {
    let value: JSONValue = ["one": 1, "two": ["three": [true, false, nil]], "four": "4"]
    #expect(try JSONValue(parsing: Data(written(value, sortsKeys: false).utf8)) == value)
  }
}
