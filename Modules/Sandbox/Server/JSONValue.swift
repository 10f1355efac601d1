import Foundation
import KeelJSON

/// The Sandbox's reading and writing of the JSON values its routes take and give.
extension JSONValue {
  /// Parses `data`; `nil` when it is not JSON.
  static func parse(_ data: Data) -> JSONValue? {
    try? JSONValue(parsing: data)
  }

  /// The encoded bytes, keys sorted so that responses are byte-for-byte stable: written by `JSONWriter`, which
  /// costs a fraction of `JSONEncoder` (the largest part of a simple route's time before it).
  var encoded: Data {
    var writer = JSONWriter(sortsKeys: true)
    writer.write(self)
    return Data(writer.bytes)
  }
}
