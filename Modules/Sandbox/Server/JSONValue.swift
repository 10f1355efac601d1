import Foundation
import KeelJSON

/// The Sandbox's reading and writing of the JSON values its routes take and give.
extension JSONValue {
  /// Parses `data`; `nil` when it is not JSON.
  static func parse(_ data: Data) -> JSONValue? {
    try? JSONValue(parsing: data)
  }

  /// The encoded bytes, keys sorted so that responses are byte-for-byte stable.
  var encoded: Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Encoding a JSONValue cannot fail: every case maps to a JSON value.
    return (try? encoder.encode(self)) ?? Data("null".utf8)
  }
}
