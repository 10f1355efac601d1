import Foundation
import KeelJSON

/// A request body that must be a JSON object, with the contract's validation of its fields.
struct JSONObject {
  let fields: [String: JSONValue]

  /// Parses `data` as an object; an empty body counts as `{}` when `emptyIsObject`.
  init(_ data: Data, emptyIsObject: Bool = false) throws {
    if data.isEmpty, emptyIsObject {
      fields = [:]
      return
    }
    guard case .object(let fields) = JSONValue.parse(data) else { throw PlatformError.notJSON }
    self.fields = fields
  }

  /// A string field that must be present; at most `max` characters; at least one unless `allowEmpty`.
  func requiredString(_ name: String, max: Int, allowEmpty: Bool = true) throws -> String {
    guard let value = try optionalString(name, max: max) else { throw PlatformError.missing(name) }
    if value.isEmpty, !allowEmpty { throw PlatformError.missing(name) }
    return value
  }

  /// A string field that may be absent; at most `max` characters.
  func optionalString(_ name: String, max: Int) throws -> String? {
    switch fields[name] {
    case nil, .null?: return nil
    case .string(let value)?:
      guard value.count <= max else { throw PlatformError.tooLong(name, max: max) }
      return value
    default: throw PlatformError.invalid(name)
    }
  }

  /// A boolean field that may be absent.
  func optionalBool(_ name: String) throws -> Bool? {
    switch fields[name] {
    case nil, .null?: return nil
    case .bool(let value)?: return value
    default: throw PlatformError.invalid(name)
    }
  }

  /// `metadata`: an object of at most five string values, or absent.
  func optionalMetadata() throws -> [String: String]? {
    switch fields["metadata"] {
    case nil, .null?: return nil
    case .object(let entries)?:
      guard entries.count <= 5 else {
        throw PlatformError(code: 400_110, message: #""metadata" has more than 5 entries."#)
      }
      return try entries.mapValues { value in
        guard case .string(let string) = value else { throw PlatformError.invalid("metadata") }
        return string
      }
    default: throw PlatformError.invalid("metadata")
    }
  }
}
