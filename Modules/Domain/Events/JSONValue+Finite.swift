// JSONValue has a module of its own (the Sandbox and the Socket.IO codec speak it too); Domain's API shows it, so
// Domain's clients get it from `import Domain`.
@_exported import KeelJSON

extension JSONValue {
  /// Whether every number in the value is finite, so that it has a JSON form.
  var isFinite: Bool {
    switch self {
    case .null, .bool, .string: true
    case .number(let value): value.isFinite
    case .array(let values): values.allSatisfy(\.isFinite)
    case .object(let values): values.values.allSatisfy(\.isFinite)
    }
  }
}

extension JSONValue {
  /// The most bytes the value takes as compact JSON, counted without encoding it: each string's escapes included
  /// (a `/` counted as escaped, a control character as `\uXXXX`), each number in its longest form.
  var encodedSizeBound: Int {
    switch self {
    case .null: 4
    case .bool(let value): value ? 4 : 5
    case .number(let value): Int64(exactly: value).map { String($0).utf8.count } ?? 24
    case .string(let value): Self.encodedSizeBound(of: value)
    case .array(let values): 2 + Swift.max(values.count - 1, 0) + values.reduce(0) { $0 + $1.encodedSizeBound }
    case .object(let values): Self.encodedSizeBound(of: values)
    }
  }

  /// Whether `object` takes at most `limit` bytes as compact JSON: first by a bound that does not read the strings
  /// (each byte counted as escaped), then, only if that is over, by ``encodedSizeBound(of:)-(Dictionary<String,JSONValue>)``.
  static func fits(_ object: [String: JSONValue], within limit: Int) -> (fits: Bool, size: Int) {
    let quick = quickSizeBound(of: object)
    if quick <= limit { return (true, quick) }
    let size = encodedSizeBound(of: object)
    return (size <= limit, size)
  }

  /// A looser bound than ``encodedSizeBound``: every string byte counted as an escape (6 bytes).
  private static func quickSizeBound(of object: [String: JSONValue]) -> Int {
    object.reduce(2 + object.count) { $0 + $1.key.utf8.count * 6 + 3 + $1.value.quickSizeBound }
  }

  private var quickSizeBound: Int {
    switch self {
    case .string(let value): value.utf8.count * 6 + 2
    case .array(let values): values.reduce(2 + values.count) { $0 + $1.quickSizeBound }
    case .object(let values): Self.quickSizeBound(of: values)
    default: encodedSizeBound
    }
  }

  /// The most bytes `object` takes as a compact JSON object.
  static func encodedSizeBound(of object: [String: JSONValue]) -> Int {
    2 + Swift.max(object.count - 1, 0)
      + object.reduce(0) { $0 + encodedSizeBound(of: $1.key) + 1 + $1.value.encodedSizeBound }
  }

  /// The most bytes `string` takes as a JSON string, quotes included.
  static func encodedSizeBound(of string: String) -> Int {
    var size = 2
    for byte in string.utf8 {
      switch byte {
      case 0x22, 0x2F, 0x5C: size += 2
      case 0..<0x20: size += 6
      default: size += 1
      }
    }
    return size
  }
}
